import { renderToString } from "ink";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { Markdown } from "../../src/tui/markdown.js";
import { markdown_text } from "../../src/tui/markdown-text.js";

const SAMPLES = [
  "hello **bold** and *it* and `code` [link](http://x.y) end",
  "# Title with **bold**\n## Sub `c`",
  "- item one\n  - nested *x*\n1. first\n> quoted **b**\n---\n\n```ts\nconst a = 1;\n\nb\n```\nafter",
  "word ".repeat(60),
  `- ${"long item text ".repeat(20)}`,
  `\`\`\`\n${"x".repeat(250)}\n\`\`\``,
  `${"aaaa ".repeat(10)}${"b".repeat(130)} tail`,
  "word0 \nword1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12 \n",
  `   leading spaces ${"z ".repeat(70)}`,
  "```py\nunclosed fence, still streaming",
];

describe("markdown_text", () => {
  it("prints the lines ink prints for the Markdown view at the same width", () => {
    // Under the test runner ink's chalk has no colours, so its output is the plain text to match.
    for (const columns of [120, 40, 17]) {
      for (const text of SAMPLES)
        expect(markdown_text(text, columns, false), `${columns}: ${text}`).toBe(renderToString(createElement(Markdown, { text }), { columns }));
    }
  });

  it("styles the spans only for a terminal that shows colours", () => {
    const text = "plain **bold** `code`";
    expect(markdown_text(text, 80, false)).toBe("plain bold code");
    expect(markdown_text(text, 80, true)).toBe("plain \u001b[1mbold\u001b[0m \u001b[36mcode\u001b[0m");
  });

  it("drops the escape sequences a model writes", () => {
    expect(markdown_text("a\u001b[2Jb \u001b]52;c;eA==\u0007c", 80, true)).toBe("ab c");
  });

  it("prints nothing for no text", () => {
    expect(markdown_text("", 80, true)).toBe("");
  });
});
