import { BUILD_RULES } from "../grammars/build.js";
import { FILE_RULES } from "../grammars/files.js";
import { GIT_RULES } from "../grammars/git.js";
import { NETWORK_RULES } from "../grammars/network.js";
import { RUNTIMES_RULES } from "../grammars/runtimes.js";
import { SHELL_RULES } from "../grammars/shell.js";
import type { ProgramRule } from "./types.js";

/** Every program with an argument grammar, by each name it answers to; a name claimed twice is a bug, caught on load. */
const RULES: ReadonlyMap<string, ProgramRule> = index([...BUILD_RULES, ...FILE_RULES, ...GIT_RULES, ...NETWORK_RULES, ...RUNTIMES_RULES, ...SHELL_RULES]);

function index(rules: readonly ProgramRule[]): Map<string, ProgramRule> {
  const by_name = new Map<string, ProgramRule>();
  for (const rule of rules) {
    for (const name of rule.names) {
      if (by_name.has(name)) throw new Error(`two argument grammars claim the program ${name}`);
      by_name.set(name, rule);
    }
  }
  return by_name;
}

/** The rule of a program, by the name it is run as; `undefined` when air knows no grammar for it. */
export function rule_of(name: string): ProgramRule | undefined {
  return RULES.get(name);
}
