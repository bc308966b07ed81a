import type { ProgramRule } from "../grammar/types.js";
import { INTERPRETER_RULES } from "./interpreters.js";
import { JS_TOOL_RULES } from "./js-tools.js";
import { NODE_RULES } from "./node.js";
import { PACKAGE_MANAGER_RULES } from "./package-managers.js";
import { PYTHON_TOOL_RULES } from "./python-tools.js";
import { PYTHON_RULES } from "./python.js";

/** Language runtimes, package managers and JS/Python dev tools (issue 11, the runtimes zone). */
export const RUNTIMES_RULES: readonly ProgramRule[] = [
  ...NODE_RULES,
  ...PACKAGE_MANAGER_RULES,
  ...JS_TOOL_RULES,
  ...PYTHON_RULES,
  ...PYTHON_TOOL_RULES,
  ...INTERPRETER_RULES,
];
