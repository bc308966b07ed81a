/**
 * A capability's command tool with hostile parameter values: each must reach the program as one literal argument.
 * The values live in a fixture file (never typed into a shell); printf prints each argument it gets in brackets.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { command_line, command_tool } from "../../src/capabilities/command-tool.js";
import { ToolDeclaration } from "../../src/capabilities/manifest.js";
import { output_of, error_of, files_under, tool_harness, type ToolHarness } from "../tools/helpers.js";

const ATTACKS = v.parse(
  v.array(v.string()),
  JSON.parse(fs.readFileSync(fileURLToPath(new URL("../fixtures/capability-attacks/values.json", import.meta.url)), "utf8")),
);

const DECLARATION = v.parse(ToolDeclaration, {
  name: "probe.args",
  description: "Prints each argument in brackets.",
  category: "project",
  implementation: {
    kind: "command",
    argv: ["printf", "[%s]", "{value}", "--label={label}", "{count}", "{flag}"],
    parameters: {
      value: { type: "string", description: "Any text." },
      label: { type: "string", description: "An optional label." },
      count: { type: "integer", description: "A number." },
      flag: { type: "boolean", description: "A switch." },
    },
    required: ["value"],
  },
});

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness();
  if (DECLARATION.implementation.kind !== "command") throw new Error("the fixture declares a command tool");
  fs.mkdirSync(path.join(h.root, "pwned-dir"));
  fs.writeFileSync(path.join(h.root, "pwned-dir", "keep"), "");
  h.registry.register(command_tool(DECLARATION, DECLARATION.implementation, { id: "probe", trust: "user_installed" }));
});
afterEach(() => h.cleanup());

/** The project's own files: air's folder gains the call's artifacts, which is the point of recording them. */
const project_files = () => files_under(h.root).filter((file) => !file.startsWith(".air/"));

type Output = { exit_code: number; stdout_tail: string; stdout_artifact_id: string; command_run_id: string };

describe("a command tool", () => {
  it("has an input schema built from its parameters, exported as JSON Schema", () => {
    const schema = h.registry.schemas().find((entry) => entry.name === "probe.args");
    expect(schema?.input_schema).toMatchObject({
      type: "object",
      properties: { value: { type: "string", description: "Any text." }, count: { type: "integer" }, flag: { type: "boolean" } },
      required: ["value"],
    });
  });

  it("refuses input off its schema before anything runs", async () => {
    const error = error_of(await h.call("probe.args", { value: "x", count: "three" }));
    expect(error.message).toContain("count");
    expect(h.events("command.started")).toEqual([]);
  });

  it("refuses a parameter it does not declare", async () => {
    error_of(await h.call("probe.args", { value: "x", extra: "; touch pwned" }));
    expect(h.events("command.started")).toEqual([]);
  });

  // Plain titles: it.each would read `$…` in the values as its own placeholders.
  for (const value of ATTACKS) {
    it(`passes ${JSON.stringify(value)} as one literal argument`, async () => {
      const before = project_files();
      const output = output_of<Output>(await h.call("probe.args", { value, label: value }));
      expect(output.exit_code).toBe(0);
      expect(output.stdout_tail).toBe(`[${value}][--label=${value}]`);
      // Nothing the value says was run: no file appeared in the project, and the one beside it is still there.
      expect(project_files()).toEqual(before);
      expect(fs.existsSync(path.join(h.root, "pwned"))).toBe(false);
      expect(fs.existsSync(path.join(h.root, "pwned-dir", "keep"))).toBe(true);
    });
  }

  it("leaves out an element whose optional parameter the call omits, and prints integers and booleans as words", async () => {
    const output = output_of<Output>(await h.call("probe.args", { value: "v", count: 3, flag: false }));
    expect(output.stdout_tail).toBe("[v][3][false]");
  });

  it("runs like shell.run: command events, an output artifact, evidence, and the exact line the engine judged", async () => {
    const output = output_of<Output>(await h.call("probe.args", { value: "$(id)" }));
    const [started] = h.events("command.started");
    expect(started?.payload.command).toBe("printf '[%s]' '$(id)'");
    expect(h.events("command.completed")).toHaveLength(1);
    expect(h.artifact_text(output.stdout_artifact_id)).toBe("[$(id)]");
    expect(h.events("evidence.created").map((event) => event.payload.command_run_id)).toContain(output.command_run_id);
  });
});

describe("a command line", () => {
  it("quotes every element whole, so a value never re-opens a placeholder", () => {
    expect(command_line(["echo", "{a}", "x{b}y"], { a: "{b}", b: "$&" })).toBe("echo '{b}' 'x$&y'");
  });
});
