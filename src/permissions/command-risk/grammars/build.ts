import type { ProgramRule } from "../grammar/types.js";

export const BUILD_RULES: readonly ProgramRule[] = [];
