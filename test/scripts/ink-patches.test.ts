/**
 * ink as the CLI's bundle patches it (scripts/ink-patches.mjs) draws the frames ink as published draws, byte
 * for byte: the same scenes rendered by both, every frame compared.
 */
import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { ReactElement, ReactNode } from "react";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { patch_ink_file } from "../../scripts/ink-patches.mjs";
import { bundled } from "../fixtures/bundled.js";

// chalk colours only a terminal it believes in, and reads that when it loads: both inks load after this.
const saved_force_color = process.env.FORCE_COLOR;
process.env.FORCE_COLOR = "3";
const published = { ...(await import("ink")), React: (await import("react")).default };
afterAll(() => {
  if (saved_force_color === undefined) delete process.env.FORCE_COLOR;
  else process.env.FORCE_COLOR = saved_force_color;
});

type Ink = Pick<typeof published, "render" | "Box" | "Text" | "Static" | "React">;
/** A scene: the elements of its frames, drawn one after the other. */
type Scene = (ink: Ink) => ReactElement[];

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const INK_BUILD = path.join(ROOT, "node_modules", "ink", "build");
let bundle: Awaited<ReturnType<typeof bundled<Ink>>>;
let patched: Ink;

beforeAll(async () => {
  bundle = await bundled<Ink>('export { render, Box, Text, Static } from "ink";\nexport { default as React } from "react";\n');
  patched = bundle.module;
});
afterAll(() => bundle.remove());

/** Every frame `ink` writes for `scene` on a terminal `columns` wide (debug mode: each frame whole, unthrottled). */
function frames(ink: Ink, scene: Scene, columns = 60): string[] {
  const written: string[] = [];
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        done();
      },
    }),
    { columns, rows: 40 },
  );
  const [first, ...rest] = scene(ink);
  const instance = ink.render(first ?? ink.React.createElement(ink.Text, null, ""), {
    stdout: stdout as never,
    debug: true,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  for (const element of rest) instance.rerender(element);
  instance.unmount();
  return written;
}

function text(ink: Ink, props: Record<string, unknown>, ...children: ReactNode[]): ReactElement {
  return ink.React.createElement(ink.Text, props, ...children);
}

function box(ink: Ink, props: Record<string, unknown>, ...children: ReactNode[]): ReactElement {
  return ink.React.createElement(ink.Box, props, ...children);
}

const scenes: Record<string, Scene> = {
  "styled lines, nested styles and a style across a line break": (ink) => [
    text(ink, { color: "green" }, "plain ", text(ink, { bold: true }, "bold\nstill bold"), " after\n", text(ink, { dimColor: true }, "dim")),
  ],
  "wide characters, emoji and combining marks": (ink) => [text(ink, {}, "漢字 and 👍🏽 and cafe\u0301\n한국어 ✔ end")],
  "lines indented by padding and margins": (ink) => [
    box(
      ink,
      { flexDirection: "column", paddingLeft: 3, marginTop: 1 },
      text(ink, {}, "one\ntwo"),
      box(ink, { marginLeft: 2 }, text(ink, { color: "red" }, "three")),
    ),
  ],
  "two texts on one row": (ink) => [box(ink, { flexDirection: "row" }, text(ink, {}, "left"), text(ink, { color: "blue" }, " right"))],
  "a bordered box": (ink) => [box(ink, { borderStyle: "round", borderColor: "cyan" }, text(ink, {}, "inside"))],
  "a clipped box": (ink) => [box(ink, { height: 2, overflow: "hidden", flexDirection: "column" }, text(ink, {}, "1\n2\n3\n4"))],
  "wrapped and truncated text": (ink) => [
    box(
      ink,
      { width: 20, flexDirection: "column" },
      text(ink, {}, "a line long enough to wrap over several rows of twenty"),
      text(ink, { wrap: "truncate" }, "a line long enough to be truncated"),
    ),
  ],
  "static items printed above the live region": (ink) =>
    [1, 2, 3].map((count) =>
      box(
        ink,
        { flexDirection: "column" },
        ink.React.createElement(ink.Static<number>, {
          items: Array.from({ length: count }, (_, index) => index),
          children: (item: number) => text(ink, { key: item, color: "yellow" }, `item ${item}\nits second line`),
        }),
        text(ink, {}, `live ${count}`),
      ),
    ),
  // Each frame a new reply line: more than the 4,096 entries a cache holds before it starts over.
  "a streaming reply, frame after frame, past the caches' bound": (ink) =>
    Array.from({ length: 4_200 }, (_, frame) =>
      box(
        ink,
        { flexDirection: "column" },
        text(ink, {}, `word${frame} `.repeat((frame % 9) + 1), "\n", text(ink, { dimColor: true }, `${"⠋⠙⠹⠸"[frame % 4]} writing…`)),
        text(ink, { dimColor: true }, "─ model · ctx 12% · 1.2k tok · $0.0012 · mode default"),
        text(ink, {}, "› "),
      ),
    ),
};

describe("ink as the bundle patches it", () => {
  for (const [name, scene] of Object.entries(scenes)) {
    it(`draws ${name} as published ink does`, () => {
      const expected = frames(published, scene);
      expect(expected.length).toBeGreaterThan(0);
      expect(frames(patched, scene)).toEqual(expected);
    });
  }

  it("compares coloured frames: the styled scene carries escape sequences", () => {
    const styled = scenes["styled lines, nested styles and a style across a line break"];
    expect(styled && frames(patched, styled).join("")).toContain("\u001b[1m");
  });

  it("is patched: the bundle draws rows without ink's grid and keeps its caches across frames", () => {
    expect(bundle.source).toContain("rowsOfSingleWrites()");
    expect(bundle.source).toContain("cachesAcrossFrames()");
  });
});

describe("patch_ink_file", () => {
  it("fails when a text it replaces is no longer in ink's build, naming the file", () => {
    const file = path.join(INK_BUILD, "output.js");
    const changed = fs.readFileSync(file, "utf8").replace("caches = new OutputCaches();", "caches = makeCaches();");
    expect(() => patch_ink_file(file, changed)).toThrow(/output\.js: the package no longer reads as the bundle's patch expects/);
  });

  it("leaves ink's other files as they are", () => {
    const file = path.join(INK_BUILD, "ink.js");
    const source = fs.readFileSync(file, "utf8");
    expect(patch_ink_file(file, source)).toBe(source);
  });
});

describe("the CLI's bundle", () => {
  it("carries the patches of ink and string-width", () => {
    const bundle = path.join(ROOT, "dist", "bundle");
    const files = fs.readdirSync(bundle).filter((file) => file.endsWith(".js"));
    const sources = files.map((file) => fs.readFileSync(path.join(bundle, file), "utf8"));
    expect(sources.some((source) => source.includes("rowsOfSingleWrites()"))).toBe(true);
    expect(sources.some((source) => source.includes("emojiPresentationRegex.test(segment)"))).toBe(true);
  });
});
