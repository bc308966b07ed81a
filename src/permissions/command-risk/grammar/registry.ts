import { BUILD_RULES } from "../grammars/build.js";
import { FILE_RULES } from "../grammars/files.js";
import { GIT_RULES } from "../grammars/git.js";
import { NETWORK_RULES } from "../grammars/network.js";
import { RUNTIMES_RULES } from "../grammars/runtimes.js";
import { SHELL_RULES } from "../grammars/shell.js";
import type { ProgramRule } from "./types.js";

/** Every program with an argument grammar, by each name it answers to. */
const RULES: ReadonlyMap<string, ProgramRule> = new Map(
  [...BUILD_RULES, ...FILE_RULES, ...GIT_RULES, ...NETWORK_RULES, ...RUNTIMES_RULES, ...SHELL_RULES].flatMap((rule) =>
    rule.names.map((name): [string, ProgramRule] => [name, rule]),
  ),
);

/** The rule of a program, by the name it is run as; `undefined` when air knows no grammar for it. */
export function rule_of(name: string): ProgramRule | undefined {
  return RULES.get(name);
}
