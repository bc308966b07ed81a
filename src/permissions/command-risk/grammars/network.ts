import type { ProgramRule } from "../grammar/types.js";

export const NETWORK_RULES: readonly ProgramRule[] = [];
