/**
 * The DiagnosticParser on the real-output corpus (scripts/cpp-corpus/generate.ts): every expectation comes from
 * where the generator planted the bug, never from the parser. The measured figures are in the assertion messages.
 */
import { describe, expect, it } from "vitest";
import { type Entry, corpus_entries, corpus_text, found, group_by, parse_entry, percent, shuffle_jobs, signatures } from "../../fixtures/cpp-corpus.js";

const entries = corpus_entries();
const parsed = new Map(entries.map((entry) => [entry.output, parse_entry(entry)]));

function parsed_of(entry: Entry) {
  const diagnostics = parsed.get(entry.output);
  if (diagnostics === undefined) throw new Error(`${entry.output} was not parsed`);
  return diagnostics;
}

/** Every expected primary diagnostic the parser missed (file, line, severity and code as the seeded bug says). */
function misses(): { expected: number; missed: string[] } {
  const missed: string[] = [];
  let expected = 0;
  for (const entry of entries) {
    const results = found(entry, parsed_of(entry));
    expected += results.length;
    results.forEach((result, index) => {
      if (result === null) missed.push(`${entry.output}: ${JSON.stringify(entry.expected[index])}`);
    });
  }
  return { expected, missed };
}

/** Stability groups whose variants do not all give the same signatures. */
function unstable_groups(): { groups: number; unstable: string[] } {
  const groups = group_by(entries, (entry) => entry.stability);
  const unstable = [...groups].filter(([, members]) => new Set(members.map((entry) => signatures(entry, parsed_of(entry)).join(" "))).size > 1);
  return { groups: groups.size, unstable: unstable.map(([name]) => name) };
}

/**
 * GCC 12's JSON has no enclosing function, so two bugs with one message in one file (an invalid conversion in
 * main and in code()) can only differ by line there: its groups are measured apart from the text's.
 */
const JSON_ONLY = "gcc-json/";

/** Stability groups sharing a signature with a group of another root cause. */
function colliding_groups(selected: (entry: Entry) => boolean): { groups: number; colliding: string[] } {
  const groups = [...group_by(entries.filter(selected), (entry) => entry.stability).values()].flatMap((members) => {
    const first = members[0];
    return first === undefined
      ? []
      : [{ name: first.stability, cause: first.cause, signatures: signatures(first, parsed_of(first)).filter((s) => s !== "missing") }];
  });
  const colliding = groups.filter((group) =>
    groups.some((other) => other.cause !== group.cause && other.signatures.some((signature) => group.signatures.includes(signature))),
  );
  return { groups: groups.length, colliding: colliding.map((group) => group.name) };
}

const accuracy = misses();
const stability = unstable_groups();
const distinctness = colliding_groups((entry) => !entry.output.startsWith(JSON_ONLY));
const json_distinctness = colliding_groups((entry) => entry.output.startsWith(JSON_ONLY));
const found_share = (accuracy.expected - accuracy.missed.length) / accuracy.expected;
const distinct_share = (distinctness.groups - distinctness.colliding.length) / distinctness.groups;

describe("the parser corpus", () => {
  it(`holds at least 300 real outputs (${entries.length})`, () => {
    expect(entries.length).toBeGreaterThanOrEqual(300);
  });

  it(`finds at least 98 % of the seeded bugs' primary diagnostics with the right file, line, severity and code (${percent(accuracy.expected - accuracy.missed.length, accuracy.expected)} of ${accuracy.expected})`, () => {
    expect(found_share, `missed:\n${accuracy.missed.join("\n")}`).toBeGreaterThanOrEqual(0.98);
  });

  it(`keeps every signature the same within a stability group: line shifts, moved folder, renamed build dir, colour, make or ninja (${percent(stability.groups - stability.unstable.length, stability.groups)} of ${stability.groups} groups)`, () => {
    expect(stability.unstable).toEqual([]);
  });

  it(`gives different root causes different signatures in at least 99 % of the groups (${percent(distinctness.groups - distinctness.colliding.length, distinctness.groups)} of ${distinctness.groups} text and structured groups; GCC JSON alone ${percent(json_distinctness.groups - json_distinctness.colliding.length, json_distinctness.groups)} of ${json_distinctness.groups})`, () => {
    expect(distinct_share, `colliding: ${distinctness.colliding.join(", ")}`).toBeGreaterThanOrEqual(0.99);
  });

  it("prints byte-identical JSON whatever order the build's jobs finished in", () => {
    const framed = entries.filter((entry) => entry.framing !== null);
    const differing: string[] = [];
    for (const entry of framed) {
      const framing = entry.framing ?? "ninja";
      const reference = JSON.stringify({ diagnostics: parsed_of(entry) });
      for (const seed of [1, 2, 3]) {
        const shuffled = parse_entry(entry, shuffle_jobs(corpus_text(entry), framing, seed));
        if (JSON.stringify({ diagnostics: shuffled }) !== reference) differing.push(`${entry.output} (seed ${seed})`);
      }
    }
    expect(differing, `${framed.length} framed logs, 3 shuffles each`).toEqual([]);
  });
});
