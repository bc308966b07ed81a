import { afterEach, describe, expect, it } from "vitest";
import { cleanup } from "ink-testing-library";
import { UiCommandChannel } from "../../src/projection/ui-command-channel.js";
import { base_state, prompt, render_app, type_keys, until, state_with } from "./fixtures.js";

afterEach(() => cleanup());

function answers(rendered: ReturnType<typeof render_app>) {
  return rendered.commands.filter((command) => command.type === "answer_permission");
}

describe("permission prompt dialog", () => {
  it("shows the tool, the risk, the categories and every command the analyzer found", () => {
    const rendered = render_app(state_with(base_state(), { permission_prompts: [prompt()] }));
    const frame = rendered.lastFrame() ?? "";
    expect(frame).toContain("Permission needed: shell.run");
    expect(frame).toContain("risk high");
    expect(frame).toContain("categories: build, destructive");
    expect(frame).toContain("$ make test");
    expect(frame).toContain("$ rm -rf build");
    for (const option of ["[y] Allow once", "[s] Allow for this session", "[p] Allow for this project", "[n] Deny"]) expect(frame).toContain(option);
  });

  it("names the MCP server of a tool it asks about, and the server a project wants to start", () => {
    const call = prompt({
      tool_name: "mcp.docs.search",
      commands: [],
      command_parts: [],
      categories: [],
      subjects: [{ kind: "network", tool_name: "mcp.docs.search" }],
    });
    const start = prompt({
      tool_name: "mcp.theirs",
      commands: [],
      command_parts: [],
      categories: [],
      subjects: [{ kind: "mcp_server", server: "theirs", fingerprint: "f".repeat(64) }],
    });
    const frame = render_app(state_with(base_state(), { permission_prompts: [call] })).lastFrame() ?? "";
    expect(frame).toContain("Permission needed: mcp.docs.search: tool search of the MCP server docs");
    expect(frame).toContain("network (mcp.docs.search: tool search of the MCP server docs)");
    cleanup();
    expect(render_app(state_with(base_state(), { permission_prompts: [start] })).lastFrame() ?? "").toContain(
      "start the MCP server theirs (from the project's .mcp.json)",
    );
  });

  it("sends answer_permission(prompt_id, allow, session) when the user presses s", async () => {
    const asked = prompt();
    const rendered = render_app(state_with(base_state(), { permission_prompts: [asked] }));
    await type_keys(rendered, "s");
    expect(answers(rendered)).toEqual([{ type: "answer_permission", prompt_id: asked.prompt_id, answer: "allow", grant_scope: "session" }]);
    await until(
      () => !(rendered.lastFrame() ?? "").includes("Permission needed"),
      () => rendered.lastFrame() ?? "",
    );
  });

  it("denies once with n, and picks with the arrows and Enter", async () => {
    const first = prompt();
    const second = prompt({ question: "Run the second command?" });
    const rendered = render_app(state_with(base_state(), { permission_prompts: [first, second] }));
    await type_keys(rendered, "n");
    await until(
      () => (rendered.lastFrame() ?? "").includes("Run the second command?"),
      () => rendered.lastFrame() ?? "",
    );
    await type_keys(rendered, "\u001b[B", "\u001b[B", "\r");
    expect(answers(rendered)).toEqual([
      { type: "answer_permission", prompt_id: first.prompt_id, answer: "deny", grant_scope: "once" },
      { type: "answer_permission", prompt_id: second.prompt_id, answer: "allow", grant_scope: "project" },
    ]);
  });

  it("offers only the scopes the engine offered (deny always)", () => {
    const rendered = render_app(state_with(base_state(), { permission_prompts: [prompt({ offered_scopes: ["once"] })] }));
    const frame = rendered.lastFrame() ?? "";
    expect(frame).toContain("[y] Allow once");
    expect(frame).not.toContain("[s]");
    expect(frame).not.toContain("[p]");
    expect(frame).toContain("[n] Deny");
  });

  it("keeps the dialog up beside the reason when the runtime refuses the answer", async () => {
    const channel = new UiCommandChannel();
    channel.on("answer_permission", () => {
      throw new Error("no permission prompt is waiting for an answer");
    });
    const rendered = render_app(state_with(base_state(), { permission_prompts: [prompt()] }), { sender: channel });
    await type_keys(rendered, "y");
    await until(
      () => (rendered.lastFrame() ?? "").includes("no permission prompt is waiting"),
      () => rendered.lastFrame() ?? "",
    );
    expect(rendered.lastFrame()).toContain("Permission needed");
  });

  it("sends nothing for typed text that answers nothing: it stays in the prompt line", async () => {
    const rendered = render_app(state_with(base_state(), { permission_prompts: [prompt({ offered_scopes: ["once"] })] }));
    await type_keys(rendered, "s", "hello");
    expect(answers(rendered)).toEqual([]);
    expect(rendered.lastFrame()).toContain("› shello");
    expect(rendered.lastFrame()).toContain("(answer the permission prompt first)");
  });

  it("shows each command with what the analyzer found in it, and each path with where it is", () => {
    const asked = prompt({
      command_parts: [
        { command: "make test", categories: ["build", "test"] },
        { command: "rm -rf build", categories: ["destructive"], via: "bash -c" },
      ],
      paths: [
        { op: "write", path: "build", category: "project_build_output" },
        { op: "read", path: "/etc/hosts", category: "outside_project" },
      ],
    });
    const frame = render_app(state_with(base_state(), { permission_prompts: [asked] })).lastFrame() ?? "";
    expect(frame).toContain("$ make test → build, test");
    expect(frame).toContain("$ rm -rf build → destructive (run via bash -c)");
    expect(frame).toContain("write build · build output");
    expect(frame).toContain("read /etc/hosts · OUTSIDE the project");
  });

  it("lists the first paths of a command that names many, and how many more", () => {
    const paths = Array.from({ length: 30 }, (_, index) => ({ op: "write" as const, path: `out/${index}.o`, category: "project_build_output" }));
    const frame = render_app(state_with(base_state(), { permission_prompts: [prompt({ paths })] })).lastFrame() ?? "";
    expect(frame).toContain("write out/3.o");
    expect(frame).not.toContain("write out/4.o");
    expect(frame).toContain("… 26 more paths");
  });
});
