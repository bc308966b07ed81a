/**
 * string-width as the CLI's bundle patches it (scripts/string-width-patch.mjs) measures what string-width as
 * published measures: every character of the Basic Multilingual Plane, and the sequences the patch leaves alone.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import published from "string-width";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { patch_string_width } from "../../scripts/string-width-patch.mjs";
import { bundled } from "../fixtures/bundled.js";

type StringWidth = { stringWidth: typeof published };

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let bundle: Awaited<ReturnType<typeof bundled<StringWidth>>>;

beforeAll(async () => {
  bundle = await bundled<StringWidth>('export { default as stringWidth } from "string-width";\n');
});
afterAll(() => bundle.remove());

describe("string-width as the bundle patches it", () => {
  it("is patched: a lone character is tested against RGI_Emoji only when it has Emoji_Presentation", () => {
    expect(bundle.source).toContain("emojiPresentationRegex.test(segment)");
  });

  it("measures every BMP character alone as published string-width does", () => {
    const differing: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const character = String.fromCharCode(code);
      if (bundle.module.stringWidth(character) !== published(character)) differing.push(code.toString(16));
    }
    expect(differing).toEqual([]);
    // Not a vacuous comparison: the plane holds wide, narrow and zero-width characters, emoji among them.
    expect(["⌚", "✔", "─", "漢", "\u0301"].map((character) => bundle.module.stringWidth(character))).toEqual([2, 1, 1, 2, 0]);
  });

  it("measures sequences, astral emoji and mixed lines as published string-width does", () => {
    const samples = [
      "✔\ufe0f",
      "#\ufe0f\u20e3",
      "👍🏽",
      "👨‍👩‍👧",
      "🇫🇷",
      "cafe\u0301",
      "한국어",
      "─ model · ctx 12% · ↑1.2k ↓30",
      "a\u200db",
      "\u001b[2mdim\u001b[22m ✓",
    ];
    expect(samples.map((sample) => bundle.module.stringWidth(sample))).toEqual(samples.map((sample) => published(sample)));
  });
});

describe("patch_string_width", () => {
  const file = path.join(ROOT, "node_modules", "string-width", "index.js");

  it("leaves another major version as it is (wrap-ansi keeps string-width 7)", () => {
    const source = fs.readFileSync(file, "utf8");
    expect(patch_string_width(file, source, "7.2.0")).toBe(source);
  });

  it("fails when the text it replaces is no longer in version 8", () => {
    const changed = fs.readFileSync(file, "utf8").replace("rgiEmojiRegex.test(segment) ||", "isRgiEmoji(segment) ||");
    expect(() => patch_string_width(file, changed, "8.9.0")).toThrow(/index\.js: the package no longer reads as the bundle's patch expects/);
  });
});
