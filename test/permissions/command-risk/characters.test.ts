/**
 * Control, bidi, invisible and look-alike characters (issue 11): a command holding one is refused before it
 * is parsed, naming each character (U+XXXX and its name) and its index; plain non-ASCII text is not.
 */
import { describe, expect, it } from "vitest";
import { hidden_characters } from "../../../src/permissions/command-risk/characters.js";

const reason = (command: string): string => hidden_characters(command)?.reason ?? "";

describe("hidden_characters", () => {
  it("refuses a trailing carriage return, naming it and its index", () => {
    const found = hidden_characters("ls\r");
    expect(found?.action).toBe("refuse");
    expect(found?.reason).toMatch(/U\+000D CARRIAGE RETURN at index 2/);
  });

  it("refuses every C0 and C1 control but tab and newline", () => {
    expect(hidden_characters("echo a\tb\nls")).toBeUndefined();
    for (const code of [0x00, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x7f, 0x85, 0x9b])
      expect(hidden_characters(`echo ${String.fromCharCode(code)}`)?.action).toBe("refuse");
    expect(reason("ls\u001b[0m")).toMatch(/U\+001B ESCAPE/);
    expect(reason("ls\u0085")).toMatch(/U\+0085 NEXT LINE/);
  });

  it("refuses bidi controls, zero-width characters and other invisible formatters", () => {
    expect(reason("echo ok\u202e")).toMatch(/U\+202E RIGHT-TO-LEFT OVERRIDE at index 7 \(a bidi control/);
    expect(reason("rm \u2066x\u2069")).toMatch(/U\+2066 LEFT-TO-RIGHT ISOLATE at index 3.*U\+2069 POP DIRECTIONAL ISOLATE at index 5/);
    expect(reason("echo a\u200bb")).toMatch(/U\+200B ZERO WIDTH SPACE/);
    expect(reason("echo \ufeffx")).toMatch(/U\+FEFF ZERO WIDTH NO-BREAK SPACE/);
    expect(reason("echo \u00adx")).toMatch(/U\+00AD SOFT HYPHEN/);
    expect(reason("echo \u{e0041}")).toMatch(/U\+E0041 TAG CHARACTER/);
  });

  it("refuses spaces bash does not split words at", () => {
    expect(reason("ls\u00a0-la")).toMatch(/U\+00A0 NO-BREAK SPACE at index 2 \(a space bash does not split words at\)/);
    expect(reason("echo x\u2028y")).toMatch(/U\+2028 LINE SEPARATOR/);
  });

  it("counts the index in characters, not in UTF-16 units", () => {
    expect(reason("echo 🎉 x\u200b")).toMatch(/at index 8/);
  });

  it("refuses look-alike letters in a command name, an option, or a word with ASCII letters", () => {
    expect(reason("c\u0430t .env")).toMatch(/U\+0430 CYRILLIC SMALL LETTER A at index 1 \(a look-alike of "a"\)/);
    expect(reason("cat .\u0435nv")).toMatch(/U\+0435 CYRILLIC SMALL LETTER IE at index 5/);
    expect(reason("grep -\u0435 x")).toMatch(/U\+0435/);
    expect(reason("\u0455\u04bb -c x")).toMatch(/U\+0455 CYRILLIC SMALL LETTER DZE at index 0/);
    expect(reason("\uff43\uff41\uff54 x")).toMatch(/U\+FF43 "\uff43" at index 0 \(a look-alike of "c"\)/);
    expect(reason("rm \u2013rf x")).toMatch(/U\+2013 EN DASH at index 3 \(a look-alike of "-"\)/);
    expect(reason("echo \ufb01le")).toMatch(/a look-alike of "fi"/);
  });

  it("lists three characters and counts the rest", () => {
    expect(reason("a\u200bb\u200bc\u200bd\u200be")).toMatch(/; U\+200B .*; U\+200B .*, and 1 more:/);
  });

  it("lets plain non-ASCII text through: accents, symbols, emoji, other scripts in their own words", () => {
    for (const command of [
      'git commit -m "café ✓"',
      'echo "日本語"',
      "echo 'Привет мир'",
      'echo "naïve résumé — done"',
      "printf '%s\\n' '→ done'",
      'echo "emoji 🎉 ⚠\ufe0f 👨\u200d💻"',
      "cat docs/\u0434\u043e\u043a.md",
      "echo 10\u00b5s",
    ])
      expect(hidden_characters(command), command).toBeUndefined();
  });
});
