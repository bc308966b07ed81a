import { wire_tool_name } from "../tool-names.js";
import type { RequestView } from "./request-body.js";
import type { TurnExpectation } from "./script.js";

/** Every way `request` misses what its turn expects, each a sentence; empty when it matches. */
export function expectation_mismatches(expect: TurnExpectation, request: RequestView): string[] {
  const mismatches: string[] = [];
  if (expect.system_contains !== undefined && !request.system.includes(expect.system_contains)) {
    mismatches.push(`the system prompt does not contain ${JSON.stringify(expect.system_contains)} (it is ${excerpt(request.system)})`);
  }
  if (expect.last_user_contains !== undefined && !request.last_user_text.includes(expect.last_user_contains)) {
    mismatches.push(`the last user message does not contain ${JSON.stringify(expect.last_user_contains)} (it is ${excerpt(request.last_user_text)})`);
  }
  if (expect.tools !== undefined) {
    const offered = request.tools;
    const missing = expect.tools.filter((name) => !offered.includes(wire_tool_name(name)));
    if (missing.length > 0) {
      mismatches.push(`the request does not offer the tools ${missing.join(", ")} (it offers ${offered.length === 0 ? "none" : offered.join(", ")})`);
    }
  }
  const wanted = expect.tool_result_contains;
  if (wanted !== undefined) {
    const results = request.tool_results;
    if (!results.some((result) => result.includes(wanted))) {
      mismatches.push(
        `no tool result in the last user message contains ${JSON.stringify(wanted)} (results: ${results.length === 0 ? "none" : results.map(excerpt).join(", ")})`,
      );
    }
  }
  return mismatches;
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
