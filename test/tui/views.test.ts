import { cleanup, render } from "ink-testing-library";
import { createElement } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { new_id } from "../../src/contracts/ids.js";
import { evidence } from "./fixtures.js";
import type { ArtifactView, HudSummary } from "../../src/projection/types.js";
import { Markdown, parse_inline, parse_markdown, settled_length } from "../../src/tui/markdown.js";
import { parse_input } from "../../src/tui/slash.js";
import { DIFF_MAX_LINES, DiffView } from "../../src/tui/views/diff.js";
import { EvidenceDetails, evidence_lines } from "../../src/tui/views/evidence.js";
import { Hud, hud_fields } from "../../src/tui/views/hud.js";
import { agent, base_state, command_run, draft, render_app, state_with, task, tool_run, until } from "./fixtures.js";

afterEach(() => cleanup());

const DIFF = ["--- a/src/add.cpp", "+++ b/src/add.cpp", "@@ -1,3 +1,3 @@", " int add(int a, int b) {", "-  return a - b;", "+  return a + b;", " }"].join("\n");

function artifact(extra: Partial<ArtifactView> = {}): ArtifactView {
  return {
    id: new_id("artifact"),
    type: "diff",
    uri: "artifact://project/p/session/s/art_x",
    path: "diffs/add.diff",
    original_name: "add.diff",
    mime_type: "text/x-diff",
    size_bytes: DIFF.length,
    task_id: null,
    agent_id: null,
    tool_run_id: null,
    command_run_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

describe("Markdown", () => {
  it("parses headings, lists, quotes, rules and fenced code", () => {
    const blocks = parse_markdown("# Title\n\n- one\n  - nested\n1. first\n> quoted\n---\n```ts\nconst a = 1;\n```");
    expect(blocks.map((block) => block.kind)).toEqual(["heading", "blank", "item", "item", "item", "quote", "rule", "code"]);
    expect(blocks[3]).toMatchObject({ kind: "item", indent: 1, bullet: "•" });
    expect(blocks[4]).toMatchObject({ kind: "item", bullet: "1." });
    expect(blocks[7]).toEqual({ kind: "code", language: "ts", lines: ["const a = 1;"] });
  });

  it("parses bold, italic, inline code and links", () => {
    expect(parse_inline("a **b** *c* `d` [e](https://f) _g_")).toEqual([
      { text: "a ", style: "plain" },
      { text: "b", style: "bold" },
      { text: " ", style: "plain" },
      { text: "c", style: "italic" },
      { text: " ", style: "plain" },
      { text: "d", style: "code" },
      { text: " ", style: "plain" },
      { text: "e", style: "link" },
      { text: " (https://f)", style: "url" },
      { text: " ", style: "plain" },
      { text: "g", style: "italic" },
    ]);
  });

  it("renders an unclosed fence (a reply still streaming) as code, and keeps markers inside code literal", () => {
    const blocks = parse_markdown("text\n```py\nx = '**not bold**'");
    expect(blocks[1]).toEqual({ kind: "code", language: "py", lines: ["x = '**not bold**'"] });
    const frame = render(createElement(Markdown, { text: "## Done\n\nUse **ninja** and `ctest`:\n\n- build\n- test" })).lastFrame() ?? "";
    expect(frame).toContain("Done");
    expect(frame).toContain("Use ninja and ctest:");
    expect(frame).toContain("• build");
    expect(frame).not.toContain("**");
  });
});

describe("settled_length", () => {
  it("ends after the last whole line, never inside a code fence still open", () => {
    expect(settled_length("one\ntwo\nthr")).toBe("one\ntwo\n".length);
    expect(settled_length("no break yet")).toBe(0);
    const open = "intro\n```ts\nconst a = 1;\n";
    expect(settled_length(open)).toBe("intro\n".length);
    const closed = `${open}\`\`\`\nafter`;
    expect(settled_length(closed)).toBe(`${open}\`\`\`\n`.length);
  });

  it("scans on from a settled end it is given", () => {
    const text = "a\nb\n~~~\nc\n";
    expect(settled_length(text, "a\n".length)).toBe("a\nb\n".length);
    expect(settled_length(`${text}~~~\n`, "a\nb\n".length)).toBe(`${text}~~~\n`.length);
  });
});

describe("long lines", () => {
  it("cuts a line too long to lay out quickly (minified code, a runaway reply), saying how much is left out", () => {
    const started = performance.now();
    const frame = render(createElement(Markdown, { text: `start ${"x".repeat(200_000)}\nnext line` })).lastFrame() ?? "";
    expect(frame).toContain("more characters)");
    expect(frame).toContain("next line");
    expect(performance.now() - started).toBeLessThan(2000);
    const diff = render(createElement(DiffView, { text: `+${"y".repeat(50_000)}`, artifact_id: "art_1" })).lastFrame() ?? "";
    expect(diff).toContain("(48001 more characters)");
  });
});

describe("slash parsing", () => {
  it("tells commands, messages and unknown commands apart", () => {
    expect(parse_input("  /HUD minimal ")).toEqual({ kind: "command", name: "hud", args: "minimal" });
    expect(parse_input("/direct")).toEqual({ kind: "command", name: "direct", args: "" });
    expect(parse_input("/nope")).toEqual({ kind: "unknown_command", name: "nope" });
    expect(parse_input("//tmp/x")).toEqual({ kind: "message", text: "/tmp/x" });
    expect(parse_input("fix it")).toEqual({ kind: "message", text: "fix it" });
    expect(parse_input("   ")).toEqual({ kind: "empty" });
    expect(parse_input("/constructor")).toEqual({ kind: "unknown_command", name: "constructor" });
  });
});

describe("HUD", () => {
  const hud: HudSummary = {
    ...base_state().hud,
    model_id: "claude-x",
    context_window: 200_000,
    context_tokens: 50_000,
    context_used_percent: 25,
    input_tokens: 41_000,
    output_tokens: 2_500,
    total_tokens: 43_500,
    cost_usd: 0.1234,
    permission_mode: "accept-edits",
    running_agents: 2,
    running_tasks: 1,
  };

  it("Minimal shows the model and context used", () => {
    expect(hud_fields(hud, "minimal")).toEqual(["claude-x", "ctx 25%"]);
  });

  it("Essential adds tokens, cost and the permission mode", () => {
    expect(hud_fields(hud, "essential")).toEqual(["claude-x", "ctx 25%", "44k tok (↑41k ↓2500)", "$0.1234", "mode accept-edits"]);
  });

  it("Full adds the running agents and tasks and the session id", () => {
    const fields = hud_fields(hud, "full");
    expect(fields).toEqual(expect.arrayContaining(["agents 2", "tasks 1", `session ${hud.session_id}`]));
    expect(fields.slice(0, 5)).toEqual(hud_fields(hud, "essential"));
  });

  it("wraps between fields at the width it is given, never inside a field", () => {
    const fields = hud_fields(hud, "full");
    const frame = render(createElement(Hud, { hud, preset: "full", columns: 60 })).lastFrame() ?? "";
    const rows = frame.split("\n");
    expect(rows.length).toBeGreaterThan(1);
    expect(rows[0]?.startsWith("─ claude-x · ctx 25%")).toBe(true);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(60);
    for (const field of fields) expect(rows.some((row) => row.includes(field))).toBe(true);
  });

  it("renders the preset the UI state names, and re-renders when /hud changes it", async () => {
    expect(render(createElement(Hud, { hud, preset: "minimal", columns: 100 })).lastFrame()).not.toContain("mode");
    const rendered = render_app(base_state());
    expect(rendered.lastFrame()).toContain("session ");
    rendered.holder.set_ui({ hud_preset: "minimal" });
    await until(
      () => !(rendered.lastFrame() ?? "").includes("session "),
      () => rendered.lastFrame() ?? "",
    );
  });
});

describe("diff and evidence views", () => {
  it("shows a unified diff line by line", () => {
    const frame = render(createElement(DiffView, { text: DIFF, artifact_id: "art_1" })).lastFrame() ?? "";
    for (const line of DIFF.split("\n")) expect(frame).toContain(line.trim());
  });

  it("shows the head of a long diff and names the artifact holding the rest", () => {
    const long = Array.from({ length: DIFF_MAX_LINES + 15 }, (_, index) => `+line ${index}`).join("\n");
    const frame = render(createElement(DiffView, { text: long, artifact_id: "art_long" })).lastFrame() ?? "";
    expect(frame).toContain(`+line ${DIFF_MAX_LINES - 1}`);
    expect(frame).not.toContain(`+line ${DIFF_MAX_LINES}\n`);
    expect(frame).toContain("… 15 more lines in art_long");
  });

  it("names each piece of evidence by its kind, what it is about and its claim, and an artifact by its file — not by uri", () => {
    const log = artifact({ type: "test_log", original_name: "ctest.log", size_bytes: 120 });
    const state = state_with(base_state(), { artifacts: [log] });
    const lines = evidence_lines(
      state,
      [evidence({ kind: "artifact_excerpt", ref: log.uri, artifact_id: log.id, location: { line_start: 4, line_end: 9 } })],
      [log],
    );
    const frame = render(createElement(EvidenceDetails, { title: 'task "Fix add()"', lines })).lastFrame() ?? "";
    expect(frame).toContain('evidence of task "Fix add()":');
    expect(frame).toContain("◆ artifact_excerpt ctest.log L4-9 — all 3 tests pass");
    expect(frame).toContain(`◆ test_log ctest.log — 120 B, ${log.id}`);
    expect(frame).not.toContain("artifact://");
  });

  it("prints a finished edit with its diff, read from the artifact once", async () => {
    const run = tool_run("fs.edit", "src/add.cpp", { status: "ok", duration_ms: 14 });
    const diff = artifact({ tool_run_id: run.id });
    let reads = 0;
    const rendered = render_app(state_with(base_state(), { tool_runs: [{ ...run, artifact_ids: [diff.id] }], artifacts: [diff] }), {
      read_artifact: (id) => {
        reads += 1;
        return id === diff.id ? DIFF : "";
      },
    });
    await until(
      () => (rendered.lastFrame() ?? "").includes("+  return a + b;"),
      () => rendered.lastFrame() ?? "",
    );
    expect(rendered.lastFrame()).toContain("⎿ ✓ fs.edit src/add.cpp  +1 −1 · 14 ms");
    rendered.holder.update({ tasks: [task("another")] });
    await until(() => (rendered.lastFrame() ?? "").includes("another"));
    expect(reads).toBe(1);
  });

  it("says so when a diff cannot be read", () => {
    const run = tool_run("fs.write", "src/new.cpp", { status: "ok" });
    const diff = artifact({ tool_run_id: run.id });
    const rendered = render_app(state_with(base_state(), { tool_runs: [run], artifacts: [diff] }));
    expect(rendered.lastFrame()).toContain(`(diff ${diff.id} unavailable)`);
  });
});

describe("progress, results and blockers", () => {
  it("shows running tasks, tools and commands with their latest progress and output tail", () => {
    const rendered = render_app(
      state_with(base_state(), {
        tasks: [task("Fix the failing test", { progress: { message: "building", percent: 40 } })],
        tool_runs: [tool_run("shell.run", "cmake --build build", { progress: "compiling 3/7" })],
        command_runs: [
          command_run("cmake --build build", { stdout_tail: "[1/7] a.o\n[2/7] b.o\n[3/7] c.o\n[4/7] d.o\n[5/7] e.o\n", stderr_tail: "warning: unused\n" }),
        ],
      }),
    );
    const frame = rendered.lastFrame() ?? "";
    expect(frame).toContain("Fix the failing test — building 40%");
    expect(frame).toContain("shell.run cmake --build build — compiling 3/7");
    expect(frame).toContain("[5/7] e.o");
    expect(frame).not.toContain("[1/7] a.o");
    expect(frame).toContain("warning: unused");
  });

  it("prints finished tasks with their evidence collapsed to a count (the summary is the final message's), failed commands with their stderr", () => {
    const done = task("Fix add()", { status: "completed", summary: "Changed `-` to `+`; **ctest** passes.", completed_at: "2026-01-01T00:10:00.000Z" });
    const failed = task("Fix sub()", {
      status: "failed",
      status_reason: "Verification failed: ctest.",
      summary: "I fixed sub().",
      completed_at: "2026-01-01T00:11:00.000Z",
    });
    const rendered = render_app(
      state_with(base_state(), {
        tasks: [done, failed],
        evidence: [evidence({ task_id: done.id }), evidence({ task_id: done.id, claim: "built" })],
        command_runs: [command_run("ctest", { status: "error", exit_code: 8, stderr_tail: "1 test failed\n", duration_ms: 2500 })],
      }),
    );
    const frame = rendered.lastFrame() ?? "";
    expect(frame).toContain("✓ Task completed: Fix add()  evidence: 2 items (ctrl+o to expand)");
    expect(frame).not.toContain("ctest passes");
    expect(frame).not.toContain("all 3 tests pass");
    expect(frame).toContain("✗ Task failed: Fix sub()");
    expect(frame).toContain("Verification failed: ctest.");
    expect(frame).toContain("✗ $ ctest exit 8 2.5 s");
    expect(frame).toContain("1 test failed");
  });

  it("leaves a worker's model turns (model.complete runs) to its agent line", () => {
    const frame =
      render_app(
        state_with(base_state(), {
          tool_runs: [
            tool_run("model.complete", "task_execution"),
            tool_run("model.complete", "task_execution", { status: "ok" }),
            tool_run("fs.read", "src/add.cpp"),
          ],
        }),
      ).lastFrame() ?? "";
    expect(frame).not.toContain("model.complete");
    expect(frame).toContain("fs.read src/add.cpp");
  });

  it("shows running agents with the last line their model is streaming", () => {
    const frame = render_app(state_with(base_state(), { agents: [agent({ stream_tail: "Looking at src/add.cpp\nThe bug is in add()" })] })).lastFrame() ?? "";
    expect(frame).toContain("executor (model-small) The bug is in add()");
    expect(frame).not.toContain("Looking at");
  });

  it("prints a reply whose stream failed with what was received and why it stopped", () => {
    const failed = draft("The build is", { status: "error", error: { kind: "provider_error", message: "the provider closed the stream", user_action: null } });
    const frame = render_app(state_with(base_state(), { conversation: { messages: [], drafts: [failed] } })).lastFrame() ?? "";
    expect(frame).toContain("The build is");
    expect(frame).toContain("✗ the reply stopped: the provider closed the stream");
    expect(frame).not.toContain("writing…");
  });

  it("reports a blocked task with its reason and what the user can do", () => {
    const blocked = task("Update the schema", {
      status: "blocked",
      status_reason: "needs a decision on the migration",
      error: { kind: "user_error", message: "ambiguous", user_action: "Say which column to keep." },
    });
    const frame = render_app(state_with(base_state(), { tasks: [blocked] })).lastFrame() ?? "";
    expect(frame).toContain("⏸ Blocked: Update the schema");
    expect(frame).toContain("needs a decision on the migration");
    expect(frame).toContain("→ Say which column to keep.");
  });
});
