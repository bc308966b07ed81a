import { wire_tool_name } from "../tool-names.js";
import { last_tool_results, last_user_text, offered_tools, system_text, type MessagesRequestBody } from "./request-body.js";
import type { TurnExpectation } from "./script.js";

/** Every way `body` misses what its turn expects, each a sentence; empty when it matches. */
export function expectation_mismatches(expect: TurnExpectation, body: MessagesRequestBody): string[] {
  const mismatches: string[] = [];
  if (expect.system_contains !== undefined && !system_text(body).includes(expect.system_contains)) {
    mismatches.push(`the system prompt does not contain ${JSON.stringify(expect.system_contains)} (it is ${excerpt(system_text(body))})`);
  }
  if (expect.last_user_contains !== undefined && !last_user_text(body).includes(expect.last_user_contains)) {
    mismatches.push(`the last user message does not contain ${JSON.stringify(expect.last_user_contains)} (it is ${excerpt(last_user_text(body))})`);
  }
  if (expect.tools !== undefined) {
    const offered = offered_tools(body);
    const missing = expect.tools.filter((name) => !offered.includes(wire_tool_name(name)));
    if (missing.length > 0) {
      mismatches.push(`the request does not offer the tools ${missing.join(", ")} (it offers ${offered.length === 0 ? "none" : offered.join(", ")})`);
    }
  }
  if (expect.tool_result_contains !== undefined) {
    const results = last_tool_results(body);
    if (!results.some((result) => result.includes(expect.tool_result_contains!))) {
      mismatches.push(`no tool result in the last user message contains ${JSON.stringify(expect.tool_result_contains)} (results: ${results.length === 0 ? "none" : results.map(excerpt).join(", ")})`);
    }
  }
  return mismatches;
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
