import type { ProgramRule } from "../grammar/types.js";
import { JS_TOOL_RULES } from "./js-tools.js";
import { NODE_RULES } from "./node.js";
import { PACKAGE_MANAGER_RULES } from "./package-managers.js";

/** Language runtimes, package managers and JS/Python dev tools (issue 11, the runtimes zone). */
export const RUNTIMES_RULES: readonly ProgramRule[] = [...NODE_RULES, ...PACKAGE_MANAGER_RULES, ...JS_TOOL_RULES];
