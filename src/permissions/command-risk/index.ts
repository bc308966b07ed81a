export { analyze_command } from "./analyze.js";
export type { AnalyzerAction, CommandAnalysis, CommandCategory, CommandFinding } from "./types.js";
