/**
 * string-width 8 (how ink measures text) inside the CLI's bundle: a lone character that is no emoji at all is
 * not tested against `\p{RGI_Emoji}`.
 *
 * Why: that property of strings compiles to one of the largest expressions V8 has, at its first use — on ink's
 * first frame, whose HUD and prompt line carry non-ASCII glyphs ("─", "·", "›"). Measured on a 2-core
 * machine: 16 ms for the first test, 1 ms for the second (V8 compiling it again to native code), against
 * 0.06 ms for `\p{Emoji_Presentation}`, all on the way to the Main Agent's ready mark (goal ≤ 6× `node -e 0`).
 *
 * Sound: a grapheme of one UTF-16 unit is one code point; the only single code points in RGI_Emoji are its
 * basic emoji, which all have Emoji_Presentation (UTS #51, ED-20). Sequences, and astral characters (two
 * units), are tested as before. test/scripts/string-width-patch.test.ts compares every BMP character.
 */
import fs from "node:fs";
import path from "node:path";
import { replace_each } from "./source-patch.mjs";

const replacements = [
  ["const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;", "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;\nconst emojiPresentationRegex = /\\p{Emoji_Presentation}/u;"],
  [
    "if (rgiEmojiRegex.test(segment) || isDoubleWidthNonRgiEmojiSequence(segment)) {",
    "if (((segment.length > 1 || emojiPresentationRegex.test(segment)) && rgiEmojiRegex.test(segment)) || isDoubleWidthNonRgiEmojiSequence(segment)) {",
  ],
];

/** Major version 8 of string-width's `index.js`, patched; other versions (wrap-ansi keeps a 7) as they are. */
export function patch_string_width(file, source, version) {
  return version.startsWith("8.") ? replace_each(file, source, replacements) : source;
}

/** The esbuild plugin that patches each string-width the bundle takes in. */
export const string_width_single_code_units = {
  name: "string-width-single-code-units",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const manifest = JSON.parse(await fs.promises.readFile(path.join(path.dirname(args.path), "package.json"), "utf8"));
      return { contents: patch_string_width(args.path, await fs.promises.readFile(args.path, "utf8"), manifest.version), loader: "js" };
    });
  },
};
