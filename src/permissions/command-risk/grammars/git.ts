import type { ProgramRule } from "../grammar/types.js";

export const GIT_RULES: readonly ProgramRule[] = [];
