import type { ProgramRule } from "../grammar/types.js";
import { BUILTIN_RULES } from "./builtins.js";
import { SYSTEM_RULES } from "./system.js";

/** The shell itself: its builtins, and the small programs scripts are made of. */
export const SHELL_RULES: readonly ProgramRule[] = [...BUILTIN_RULES, ...SYSTEM_RULES];
