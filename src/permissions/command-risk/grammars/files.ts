import type { ProgramRule } from "../grammar/types.js";
import { AWK_RULE } from "./awk.js";
import { CHANGE_RULES } from "./changes.js";
import { FIND_RULE } from "./find.js";
import { JSON_RULES } from "./jq.js";
import { LISTING_RULES } from "./listing.js";
import { SEARCH_RULES } from "./search.js";
import { SED_RULE } from "./sed.js";
import { TEXT_RULES } from "./text.js";

/**
 * File and text tools: coreutils' text filters, listings and file changes, find, the searches (grep, rg,
 * ag, fd), and the programs whose argument is a small program (sed, awk, jq, yq).
 */
export const FILE_RULES: readonly ProgramRule[] = [
  ...TEXT_RULES,
  ...LISTING_RULES,
  ...CHANGE_RULES,
  FIND_RULE,
  ...SEARCH_RULES,
  SED_RULE,
  AWK_RULE,
  ...JSON_RULES,
];
