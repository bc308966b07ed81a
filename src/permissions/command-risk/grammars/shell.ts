import type { ProgramRule } from "../grammar/types.js";

export const SHELL_RULES: readonly ProgramRule[] = [];
