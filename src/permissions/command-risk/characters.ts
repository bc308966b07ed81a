import type { CommandFinding } from "./types.js";

/**
 * Characters that make a command read differently from what runs (issue 11, "Risk signals"): control
 * characters (a trailing carriage return ends up in the last word), bidi controls (the text shows in
 * another order than bash reads it), invisible characters and odd spaces (bash does not split words
 * at them), and look-alikes of ASCII letters where they change what runs — a command name, an option,
 * or a word that also has ASCII letters (`c\u0430t`, a Cyrillic a). The command is refused, naming
 * each character and its position, before it is parsed. Plain non-ASCII text (`"café ✓"`, `"日本語"`,
 * a Russian sentence) is not a look-alike: its words are written in one script.
 */

/** C0 controls by code (tab and line feed are allowed), with DELETE and the C1 controls after them. */
const C0 = [
  "NULL",
  "START OF HEADING",
  "START OF TEXT",
  "END OF TEXT",
  "END OF TRANSMISSION",
  "ENQUIRY",
  "ACKNOWLEDGE",
  "BELL",
  "BACKSPACE",
  "CHARACTER TABULATION",
  "LINE FEED",
  "LINE TABULATION",
  "FORM FEED",
  "CARRIAGE RETURN",
  "SHIFT OUT",
  "SHIFT IN",
  "DATA LINK ESCAPE",
  "DEVICE CONTROL ONE",
  "DEVICE CONTROL TWO",
  "DEVICE CONTROL THREE",
  "DEVICE CONTROL FOUR",
  "NEGATIVE ACKNOWLEDGE",
  "SYNCHRONOUS IDLE",
  "END OF TRANSMISSION BLOCK",
  "CANCEL",
  "END OF MEDIUM",
  "SUBSTITUTE",
  "ESCAPE",
  "INFORMATION SEPARATOR FOUR",
  "INFORMATION SEPARATOR THREE",
  "INFORMATION SEPARATOR TWO",
  "INFORMATION SEPARATOR ONE",
];
const C1 = [
  "PADDING CHARACTER",
  "HIGH OCTET PRESET",
  "BREAK PERMITTED HERE",
  "NO BREAK HERE",
  "INDEX",
  "NEXT LINE",
  "START OF SELECTED AREA",
  "END OF SELECTED AREA",
  "CHARACTER TABULATION SET",
  "CHARACTER TABULATION WITH JUSTIFICATION",
  "LINE TABULATION SET",
  "PARTIAL LINE FORWARD",
  "PARTIAL LINE BACKWARD",
  "REVERSE LINE FEED",
  "SINGLE SHIFT TWO",
  "SINGLE SHIFT THREE",
  "DEVICE CONTROL STRING",
  "PRIVATE USE ONE",
  "PRIVATE USE TWO",
  "SET TRANSMIT STATE",
  "CANCEL CHARACTER",
  "MESSAGE WAITING",
  "START OF GUARDED AREA",
  "END OF GUARDED AREA",
  "START OF STRING",
  "SINGLE GRAPHIC CHARACTER INTRODUCER",
  "SINGLE CHARACTER INTRODUCER",
  "CONTROL SEQUENCE INTRODUCER",
  "STRING TERMINATOR",
  "OPERATING SYSTEM COMMAND",
  "PRIVACY MESSAGE",
  "APPLICATION PROGRAM COMMAND",
];

/** Invisible characters, odd spaces and bidi controls, by code point (Unicode 14 names). */
const INVISIBLE: ReadonlyMap<number, string> = new Map([
  [0x00a0, "NO-BREAK SPACE"],
  [0x00ad, "SOFT HYPHEN"],
  [0x034f, "COMBINING GRAPHEME JOINER"],
  [0x061c, "ARABIC LETTER MARK"],
  [0x115f, "HANGUL CHOSEONG FILLER"],
  [0x1160, "HANGUL JUNGSEONG FILLER"],
  [0x1680, "OGHAM SPACE MARK"],
  [0x17b4, "KHMER VOWEL INHERENT AQ"],
  [0x17b5, "KHMER VOWEL INHERENT AA"],
  [0x180e, "MONGOLIAN VOWEL SEPARATOR"],
  [0x2000, "EN QUAD"],
  [0x2001, "EM QUAD"],
  [0x2002, "EN SPACE"],
  [0x2003, "EM SPACE"],
  [0x2004, "THREE-PER-EM SPACE"],
  [0x2005, "FOUR-PER-EM SPACE"],
  [0x2006, "SIX-PER-EM SPACE"],
  [0x2007, "FIGURE SPACE"],
  [0x2008, "PUNCTUATION SPACE"],
  [0x2009, "THIN SPACE"],
  [0x200a, "HAIR SPACE"],
  [0x200b, "ZERO WIDTH SPACE"],
  [0x200c, "ZERO WIDTH NON-JOINER"],
  [0x200d, "ZERO WIDTH JOINER"],
  [0x200e, "LEFT-TO-RIGHT MARK"],
  [0x200f, "RIGHT-TO-LEFT MARK"],
  [0x2028, "LINE SEPARATOR"],
  [0x2029, "PARAGRAPH SEPARATOR"],
  [0x202a, "LEFT-TO-RIGHT EMBEDDING"],
  [0x202b, "RIGHT-TO-LEFT EMBEDDING"],
  [0x202c, "POP DIRECTIONAL FORMATTING"],
  [0x202d, "LEFT-TO-RIGHT OVERRIDE"],
  [0x202e, "RIGHT-TO-LEFT OVERRIDE"],
  [0x202f, "NARROW NO-BREAK SPACE"],
  [0x205f, "MEDIUM MATHEMATICAL SPACE"],
  [0x2060, "WORD JOINER"],
  [0x2061, "FUNCTION APPLICATION"],
  [0x2062, "INVISIBLE TIMES"],
  [0x2063, "INVISIBLE SEPARATOR"],
  [0x2064, "INVISIBLE PLUS"],
  [0x2066, "LEFT-TO-RIGHT ISOLATE"],
  [0x2067, "RIGHT-TO-LEFT ISOLATE"],
  [0x2068, "FIRST STRONG ISOLATE"],
  [0x2069, "POP DIRECTIONAL ISOLATE"],
  [0x3000, "IDEOGRAPHIC SPACE"],
  [0x3164, "HANGUL FILLER"],
  [0xfeff, "ZERO WIDTH NO-BREAK SPACE"],
  [0xffa0, "HALFWIDTH HANGUL FILLER"],
]);

/** Letters of other scripts (and dashes) that look like ASCII ones, with what they look like (Unicode confusables). */
const CONFUSABLE: ReadonlyMap<number, readonly [name: string, looks: string]> = new Map([
  [0x0430, ["CYRILLIC SMALL LETTER A", "a"]],
  [0x0435, ["CYRILLIC SMALL LETTER IE", "e"]],
  [0x04bb, ["CYRILLIC SMALL LETTER SHHA", "h"]],
  [0x0456, ["CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I", "i"]],
  [0x0458, ["CYRILLIC SMALL LETTER JE", "j"]],
  [0x043a, ["CYRILLIC SMALL LETTER KA", "k"]],
  [0x043e, ["CYRILLIC SMALL LETTER O", "o"]],
  [0x0440, ["CYRILLIC SMALL LETTER ER", "p"]],
  [0x0441, ["CYRILLIC SMALL LETTER ES", "c"]],
  [0x0443, ["CYRILLIC SMALL LETTER U", "y"]],
  [0x0445, ["CYRILLIC SMALL LETTER HA", "x"]],
  [0x0455, ["CYRILLIC SMALL LETTER DZE", "s"]],
  [0x0501, ["CYRILLIC SMALL LETTER KOMI DE", "d"]],
  [0x051b, ["CYRILLIC SMALL LETTER QA", "q"]],
  [0x051d, ["CYRILLIC SMALL LETTER WE", "w"]],
  [0x04af, ["CYRILLIC SMALL LETTER STRAIGHT U", "y"]],
  [0x04cf, ["CYRILLIC SMALL LETTER PALOCHKA", "l"]],
  [0x0410, ["CYRILLIC CAPITAL LETTER A", "A"]],
  [0x0412, ["CYRILLIC CAPITAL LETTER VE", "B"]],
  [0x0415, ["CYRILLIC CAPITAL LETTER IE", "E"]],
  [0x0406, ["CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I", "I"]],
  [0x0408, ["CYRILLIC CAPITAL LETTER JE", "J"]],
  [0x041a, ["CYRILLIC CAPITAL LETTER KA", "K"]],
  [0x041c, ["CYRILLIC CAPITAL LETTER EM", "M"]],
  [0x041d, ["CYRILLIC CAPITAL LETTER EN", "H"]],
  [0x041e, ["CYRILLIC CAPITAL LETTER O", "O"]],
  [0x0420, ["CYRILLIC CAPITAL LETTER ER", "P"]],
  [0x0421, ["CYRILLIC CAPITAL LETTER ES", "C"]],
  [0x0422, ["CYRILLIC CAPITAL LETTER TE", "T"]],
  [0x0425, ["CYRILLIC CAPITAL LETTER HA", "X"]],
  [0x0423, ["CYRILLIC CAPITAL LETTER U", "Y"]],
  [0x0405, ["CYRILLIC CAPITAL LETTER DZE", "S"]],
  [0x04ae, ["CYRILLIC CAPITAL LETTER STRAIGHT U", "Y"]],
  [0x051a, ["CYRILLIC CAPITAL LETTER QA", "Q"]],
  [0x051c, ["CYRILLIC CAPITAL LETTER WE", "W"]],
  [0x04c0, ["CYRILLIC LETTER PALOCHKA", "I"]],
  [0x03b1, ["GREEK SMALL LETTER ALPHA", "a"]],
  [0x03bf, ["GREEK SMALL LETTER OMICRON", "o"]],
  [0x03bd, ["GREEK SMALL LETTER NU", "v"]],
  [0x03b9, ["GREEK SMALL LETTER IOTA", "i"]],
  [0x03ba, ["GREEK SMALL LETTER KAPPA", "k"]],
  [0x03c5, ["GREEK SMALL LETTER UPSILON", "u"]],
  [0x03c7, ["GREEK SMALL LETTER CHI", "x"]],
  [0x03b3, ["GREEK SMALL LETTER GAMMA", "y"]],
  [0x0391, ["GREEK CAPITAL LETTER ALPHA", "A"]],
  [0x0392, ["GREEK CAPITAL LETTER BETA", "B"]],
  [0x0395, ["GREEK CAPITAL LETTER EPSILON", "E"]],
  [0x0396, ["GREEK CAPITAL LETTER ZETA", "Z"]],
  [0x0397, ["GREEK CAPITAL LETTER ETA", "H"]],
  [0x0399, ["GREEK CAPITAL LETTER IOTA", "I"]],
  [0x039a, ["GREEK CAPITAL LETTER KAPPA", "K"]],
  [0x039c, ["GREEK CAPITAL LETTER MU", "M"]],
  [0x039d, ["GREEK CAPITAL LETTER NU", "N"]],
  [0x039f, ["GREEK CAPITAL LETTER OMICRON", "O"]],
  [0x03a1, ["GREEK CAPITAL LETTER RHO", "P"]],
  [0x03a4, ["GREEK CAPITAL LETTER TAU", "T"]],
  [0x03a5, ["GREEK CAPITAL LETTER UPSILON", "Y"]],
  [0x03a7, ["GREEK CAPITAL LETTER CHI", "X"]],
  [0x0585, ["ARMENIAN SMALL LETTER OH", "o"]],
  [0x057d, ["ARMENIAN SMALL LETTER SEH", "u"]],
  [0x0570, ["ARMENIAN SMALL LETTER HO", "h"]],
  [0x0578, ["ARMENIAN SMALL LETTER VO", "n"]],
  [0x0131, ["LATIN SMALL LETTER DOTLESS I", "i"]],
  [0x0237, ["LATIN SMALL LETTER DOTLESS J", "j"]],
  [0x0251, ["LATIN SMALL LETTER ALPHA", "a"]],
  [0x0261, ["LATIN SMALL LETTER SCRIPT G", "g"]],
  [0x0269, ["LATIN SMALL LETTER IOTA", "i"]],
  [0x2010, ["HYPHEN", "-"]],
  [0x2011, ["NON-BREAKING HYPHEN", "-"]],
  [0x2012, ["FIGURE DASH", "-"]],
  [0x2013, ["EN DASH", "-"]],
  [0x2014, ["EM DASH", "-"]],
  [0x2015, ["HORIZONTAL BAR", "-"]],
  [0x2212, ["MINUS SIGN", "-"]],
  [0xfe58, ["SMALL EM DASH", "-"]],
  [0xfe63, ["SMALL HYPHEN-MINUS", "-"]],
]);

/** Scripts whose letters, mixed into a word with ASCII letters, make it look like another word. */
const OTHER_SCRIPT =
  /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}\p{Script=Lisu}\p{Script=Coptic}\p{Script=Canadian_Aboriginal}]/u;
const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f/u;
const DASHES = /^[\u2010-\u2015\u2212\ufe58\ufe63\uff0d][A-Za-z]/u;
/** Where a new command starts in the text: after these, the next word is a command name. */
const TOKEN = /\$\(|[;&|(){}`\n]|[^\s;&|(){}`]+/gu;
const KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "time", "exec", "command", "builtin", "sudo", "env", "xargs"]);
const ASSIGNMENT = /^[A-Za-z_]\w*=/;

type Hidden = { readonly index: number; readonly code: number; readonly what: string };

const code_of = (char: string): number => char.codePointAt(0) ?? 0;
const hex = (code: number): string => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;

/** The name of a control, invisible or bidi character, or a description when Unicode gives it none air lists. */
function name_of(code: number): string {
  if (code < 0x20) return C0[code] ?? "";
  if (code === 0x7f) return "DELETE";
  if (code >= 0x80 && code <= 0x9f) return C1[code - 0x80] ?? "";
  if (code >= 0xe0000 && code <= 0xe007f) return "TAG CHARACTER";
  if (code >= 0xe0100 && code <= 0xe01ef) return `VARIATION SELECTOR-${code - 0xe0100 + 17}`;
  if (code >= 0xfe00 && code <= 0xfe0f) return `VARIATION SELECTOR-${code - 0xfe00 + 1}`;
  return INVISIBLE.get(code) ?? CONFUSABLE.get(code)?.[0] ?? `"${String.fromCodePoint(code)}"`;
}

/** What an invisible or control character is, or `undefined` for a character that shows as itself. */
function invisible_kind(code: number, char: string, previous: string | undefined, next: string | undefined): string | undefined {
  if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)) return "a control character";
  if (/\p{Bidi_Control}/u.test(char)) return "a bidi control: the text shows in another order than bash reads it";
  if (/\p{Cs}/u.test(char)) return "an unpaired surrogate";
  if (/[\p{Zs}\p{Zl}\p{Zp}]/u.test(char) && char !== " ") return "a space bash does not split words at";
  // An emoji's own joiners and presentation selectors are part of the picture, not hidden text.
  if (code === 0x200d && previous !== undefined && next !== undefined && EMOJI.test(previous) && EMOJI.test(next)) return undefined;
  if (code >= 0xfe00 && code <= 0xfe0f && previous !== undefined && code_of(previous) > 0x7f) return undefined;
  if (/[\p{Default_Ignorable_Code_Point}\p{Cf}]/u.test(char)) return "an invisible character";
  return undefined;
}

function invisible_characters(command: string): Hidden[] {
  const found: Hidden[] = [];
  const chars = [...command];
  chars.forEach((char, index) => {
    const code = code_of(char);
    const what = invisible_kind(code, char, chars[index - 1], chars[index + 1]);
    if (what !== undefined) found.push({ index, code, what });
  });
  return found;
}

/** What a non-ASCII letter looks like when it looks like ASCII: Unicode's confusables, or its compatibility form (`ｃ`, `𝕏`, `ﬁ`). */
function looks_like(char: string): string | undefined {
  const code = code_of(char);
  if (code < 0x80) return undefined;
  const listed = CONFUSABLE.get(code);
  if (listed !== undefined) return listed[1];
  const compatible = char.normalize("NFKC");
  return /^[A-Za-z-]+$/.test(compatible) ? compatible : undefined;
}

/** Letters of another script, or compatibility forms of ASCII ones, written in one run of letters with ASCII letters (`c\u0430t`). */
function mixed_runs(chars: readonly string[]): Set<number> {
  const mixed = new Set<number>();
  let start = 0;
  for (let index = 0; index <= chars.length; index += 1) {
    const char = chars[index];
    if (char !== undefined && /[\p{L}\p{M}]/u.test(char)) continue;
    const run = chars.slice(start, index);
    if (run.some((letter) => /[A-Za-z]/.test(letter)))
      run.forEach((letter, at) => {
        if (looks_like(letter) !== undefined || OTHER_SCRIPT.test(letter)) mixed.add(start + at);
      });
    start = index + 1;
  }
  return mixed;
}

/**
 * Look-alike letters where they change what runs: in a word that mixes them with ASCII letters
 * (`c\u0430t`, `.\u0435nv`, `ex\u0430mple.com`), and in a command name or an option made of ASCII
 * letters and look-alikes only (`\u0455\u04bb`, `-\u0435`, a dash look-alike before letters). Words are found
 * without parsing — quotes are not understood, so a quoted sentence counts as words too, which errs on
 * the side of refusing — and a word is a run of letters: a path with a folder named in another script
 * (`docs/\u0434\u043e\u043a.md`) is plain text, as is a sentence in one.
 */
function look_alikes(command: string): Hidden[] {
  const found: Hidden[] = [];
  let command_position = true;
  for (const match of command.matchAll(TOKEN)) {
    const text = match[0];
    if (/^(\$\(|[;&|(){}`\n])$/.test(text)) {
      command_position = true;
      continue;
    }
    const named = command_position || text.startsWith("-") || DASHES.test(text);
    command_position = KEYWORDS.has(text) || (command_position && ASSIGNMENT.test(text));
    const chars = [...text];
    const letters = chars.filter((char) => /[\p{L}-]/u.test(char));
    const whole = named && letters.every((char) => code_of(char) < 0x80 || looks_like(char) !== undefined);
    const mixed = mixed_runs(chars);
    const offset = [...command.slice(0, match.index)].length;
    chars.forEach((char, index) => {
      const looks = looks_like(char);
      const dash = index === 0 && DASHES.test(text);
      if (mixed.has(index) || dash || (whole && looks !== undefined)) {
        const code = code_of(char);
        found.push({ index: offset + index, code, what: looks === undefined ? "a letter of another script among ASCII ones" : `a look-alike of "${looks}"` });
      }
    });
  }
  return found;
}

const describe = (hidden: Hidden): string => `${hex(hidden.code)} ${name_of(hidden.code)} at index ${hidden.index} (${hidden.what})`;

/**
 * The refusal of a command holding characters that make it read differently from what runs, naming each
 * (up to three) and its index in the command counted in characters; `undefined` when it has none.
 */
export function hidden_characters(command: string): CommandFinding | undefined {
  // Plain ASCII without controls, the common case, needs no scan.
  if (/^[\t\n\x20-\x7e]*$/.test(command)) return undefined;
  const found = [...invisible_characters(command), ...look_alikes(command)].sort((a, b) => a.index - b.index);
  if (found.length === 0) return undefined;
  const listed = found.slice(0, 3).map(describe).join("; ");
  const more = found.length > 3 ? `, and ${found.length - 3} more` : "";
  return {
    action: "refuse",
    category: "unparseable",
    reason: `the command contains ${listed}${more}: what runs is not what it looks like; write it in plain characters`,
  };
}
