/**
 * Model text, command output, file names and commands reach the terminal; none of them may carry a live
 * escape sequence (clear the screen, retitle the window, write the clipboard, draw over the dialog).
 */
import { cleanup, render } from "ink-testing-library";
import { createElement } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { Markdown } from "../../src/tui/markdown.js";
import { clean_text } from "../../src/tui/sanitize.js";
import { base_state, command_run, draft, message, prompt, render_app, state_with, tool_run, until } from "./fixtures.js";

afterEach(() => cleanup());

const ESC = "\u001b";
const ATTACKS = {
  clear_screen: `${ESC}[2J${ESC}[H`,
  cursor_up_and_erase: `${ESC}[3A${ESC}[2K`,
  window_title: `${ESC}]0;pwned${"\u0007"}`,
  clipboard_write: `${ESC}]52;c;cm0gLXJmIH4=${"\u0007"}`,
  hyperlink: `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`,
  device_control: `${ESC}P+q544e${ESC}\\`,
  eight_bit_csi: "\u009b2J",
  carriage_return_overwrite: "safe\rEVIL",
  reset_terminal: `${ESC}c`,
  bidi_override: "abc\u202edcba",
  bell_and_backspace: "\u0007\u0008\u0008",
};

/** What must never reach the terminal from untrusted text (ink's own SGR colours are `ESC[…m`). */
function assert_inert(output: string): void {
  expect(output).not.toMatch(/\u001b\[[0-9;]*[ABCDHJKST]/);
  expect(output).not.toMatch(/\u001b[\]PX^_c]/);
  expect(output).not.toMatch(/[\u0007\u0008\u009b\u202e\r]/);
}

describe("escape sequences in untrusted text", () => {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    it(`clean_text neutralises ${name}`, () => {
      const cleaned = clean_text(`before ${attack} after`);
      assert_inert(cleaned);
      expect(cleaned.startsWith("before ")).toBe(true);
      expect(cleaned.endsWith(" after")).toBe(true);
    });
  }

  it("leaves no residue of a removed sequence (no `[31m` left behind)", () => {
    expect(clean_text(`${ESC}[31mred${ESC}[0m ${ESC}]0;t${"\u0007"}x`)).toBe("red x");
  });

  it("keeps newlines and ordinary Unicode", () => {
    expect(clean_text("ünïcode → ✓\nnext\tline")).toBe("ünïcode → ✓\nnext  line");
  });

  it("renders Markdown of a hostile reply without a live sequence", () => {
    const text = Object.values(ATTACKS)
      .map((attack) => `# head ${attack}\n- item ${attack}\n\`code ${attack}\`\n\`\`\`\n${attack}\n\`\`\``)
      .join("\n");
    const rendered = render(createElement(Markdown, { text }));
    assert_inert(rendered.lastFrame() ?? "");
  });

  it("shows every hostile field of the projection inert: messages, the streaming reply, commands, output, prompts", async () => {
    const evil = Object.values(ATTACKS).join(" ");
    const rendered = render_app(
      state_with(base_state(), {
        conversation: { messages: [message("assistant", `final ${evil}`), message("user", `typed ${evil}`)], drafts: [draft(`streaming ${evil}`)] },
        tool_runs: [tool_run("fs.edit", `src/${evil}.ts`, { status: "ok" }), tool_run("fs.read", `src/${evil}`)],
        command_runs: [command_run(`make ${evil}`, { stdout_tail: `out ${evil}\n`, stderr_tail: `err ${evil}\n` })],
      }),
    );
    expect(rendered.lastFrame()).toContain("out ");
    rendered.holder.update({ permission_prompts: [prompt({ question: `Run ${evil}?`, commands: [`rm ${evil}`], categories: [`cat ${evil}`] })] });
    await until(() => (rendered.lastFrame() ?? "").includes("Permission needed"));
    const output = rendered.frames.join("");
    expect(output).toContain("final");
    expect(output).toContain("streaming");
    expect(output).toContain("err ");
    assert_inert(output);
  });
});
