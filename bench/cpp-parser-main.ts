/** `npm run bench:cpp-parser`: the DiagnosticParser throughput figure on its own (bench/run.ts prints it too). */
import { bench_cpp_parser, cpp_parser_line } from "./cpp-parser.js";
import { format_limit_line } from "./report-limit.js";

const rounds = process.argv.includes("--quick") ? 1 : 5;
const line = cpp_parser_line(bench_cpp_parser(rounds));
console.log(`${format_limit_line(line)}  ${line.note}`);
