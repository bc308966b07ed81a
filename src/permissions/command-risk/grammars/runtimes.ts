import type { ProgramRule } from "../grammar/types.js";

export const RUNTIMES_RULES: readonly ProgramRule[] = [];
