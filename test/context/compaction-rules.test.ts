import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AirFailure } from "../../src/contracts/errors.js";
import { BUILTIN_RULES_FILE, load_compaction_rules, read_rule_file } from "../../src/context/compaction/rules.js";
import { air_home } from "../../src/project/layout.js";
import { temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject;
beforeEach(() => {
  temp = temp_project();
});
afterEach(() => temp.cleanup());

const user_file = () => path.join(air_home(), "compaction-rules.md");
const project_file = () => temp.project.layout.shared_compaction_rules;

function put(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function rules() {
  return load_compaction_rules(temp.project.layout, air_home());
}

function failure_of(run: () => unknown): AirFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof AirFailure) return error;
    throw error;
  }
  throw new Error("expected an AirFailure");
}

describe("compaction rules (D-047: built-in → ~/.air → .air/shared)", () => {
  it("ships a built-in tier that sets every setting and the compactor's instructions", () => {
    const loaded = rules();
    expect(loaded.sources).toEqual([BUILTIN_RULES_FILE]);
    expect(loaded.settings).toEqual({
      threshold_ratio: 0.8,
      keep_recent_turns: 4,
      min_covered_messages: 4,
      max_summary_tokens: 2000,
      max_compactor_input_tokens: 100000,
      circuit_breaker: { max_compactions: 3, min_turns_between: 4 },
      pin: { project_rules: true, task_list: true, blockers: true, files_touched: true },
      classify: { user_text: "summarize", assistant_text: "summarize", tool_use: "summarize", tool_result: "drop_if_needed", tool_error: "summarize" },
    });
    expect(loaded.instructions).toMatch(/^Summarise the conversation transcript below/);
    expect(loaded.instructions).not.toContain("---");
  });

  it("lets each higher tier override only the keys it sets, nested keys one by one, and appends its instructions", () => {
    put(user_file(), "---\nthreshold_ratio: 0.6\ncircuit_breaker: { max_compactions: 5 }\n---\nUser: keep benchmark numbers.\n");
    put(project_file(), "---\nkeep_recent_turns: 2\npin: { files_touched: false }\n---\nProject: keep the ADR numbers.\n");
    const loaded = rules();
    expect(loaded.sources).toEqual([BUILTIN_RULES_FILE, user_file(), project_file()]);
    expect(loaded.settings.threshold_ratio).toBe(0.6);
    expect(loaded.settings.keep_recent_turns).toBe(2);
    expect(loaded.settings.circuit_breaker).toEqual({ max_compactions: 5, min_turns_between: 4 });
    expect(loaded.settings.pin).toEqual({ project_rules: true, task_list: true, blockers: true, files_touched: false });
    expect(loaded.instructions).toMatch(/^Summarise the conversation[\s\S]*\n\nUser: keep benchmark numbers\.\n\nProject: keep the ADR numbers\.$/);
  });

  it("replaces the inherited instructions when a tier says instructions: replace, and the project tier wins over the user's", () => {
    put(user_file(), "---\nthreshold_ratio: 0.6\n---\nUser words.\n");
    put(project_file(), "---\nthreshold_ratio: 0.9\ninstructions: replace\n---\nOnly these words.\n");
    const loaded = rules();
    expect(loaded.instructions).toBe("Only these words.");
    expect(loaded.settings.threshold_ratio).toBe(0.9);
  });

  it("takes a file without front matter as instructions only, and an empty body as no change to them", () => {
    put(user_file(), "Plain instructions, no settings.\n");
    put(project_file(), "---\nkeep_recent_turns: 1\n---\n\n");
    const loaded = rules();
    expect(loaded.instructions.endsWith("\n\nPlain instructions, no settings.")).toBe(true);
    expect(loaded.settings.keep_recent_turns).toBe(1);
  });

  it.each([
    ["front matter that is not YAML", "---\nthreshold_ratio: [0.5\n---\nbody\n", /front matter is not valid YAML/],
    ["an unknown key (a typo)", "---\nthreshold_ration: 0.5\n---\nbody\n", /threshold_ration: unknown key/],
    ["a ratio over 1", "---\nthreshold_ratio: 1.5\n---\nbody\n", /threshold_ratio: expected <=1/],
    ["an unknown treatment", "---\nclassify: { tool_result: forget }\n---\nbody\n", /classify\.tool_result: expected/],
    ["front matter never closed", "---\nthreshold_ratio: 0.5\nbody\n", /never closed/],
    ["a list as front matter", "---\n- a\n- b\n---\nbody\n", /must be a mapping/],
  ])("refuses %s with a user_error naming the file and what to do", (_, text, why) => {
    put(project_file(), text);
    const failure = failure_of(rules);
    expect(failure.error.kind).toBe("user_error");
    expect(failure.error.message).toContain(project_file());
    expect(failure.error.message).toMatch(why);
    expect(failure.error.user_action).toContain(`Fix or remove ${project_file()}`);
    expect(failure.error.metadata).toEqual({ file: project_file() });
  });

  it("does not quote a broken file's values back (they are user text)", () => {
    put(user_file(), "---\nthreshold_ratio: sk-secret-looking-value\n---\n");
    expect(failure_of(rules).error.message).not.toContain("sk-secret-looking-value");
  });

  it("reads CRLF files and a byte-order mark like any other", () => {
    put(project_file(), "\uFEFF---\r\nkeep_recent_turns: 7\r\n---\r\nWindows body.\r\n");
    expect(read_rule_file(project_file())).toEqual({ file: project_file(), settings: { keep_recent_turns: 7 }, body: "Windows body." });
  });
});
