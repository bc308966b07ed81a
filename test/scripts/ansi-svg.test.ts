/**
 * The README's terminal pictures: a tmux capture with SGR escapes drawn as SVG, each run of text at its own
 * column in its own colours.
 */
import { describe, expect, it } from "vitest";
import { ansi_to_svg, parse_line } from "../../scripts/ansi-svg.js";

const ESC = "\u001b[";

describe("parse_line", () => {
  it("splits a row into runs at each style change, each at the column where it starts", () => {
    const runs = parse_line(`${ESC}32m› ${ESC}0mhello ${ESC}1;31mworld${ESC}0m`);
    expect(runs).toEqual([
      { column: 0, text: "› ", style: { fg: "#23d18b" } },
      { column: 2, text: "hello ", style: {} },
      { column: 8, text: "world", style: { bold: true, fg: "#f14c4c" } },
    ]);
  });

  it("reads 256-colour and true-colour escapes, and 22/39 undo bold and the colour", () => {
    const runs = parse_line(`${ESC}38;5;196;48;2;0;0;255ma${ESC}1mb${ESC}22;39mc`);
    expect(runs.map((run) => run.style)).toEqual([
      { fg: "#ff0000", bg: "#0000ff" },
      { fg: "#ff0000", bg: "#0000ff", bold: true },
      { fg: undefined, bg: "#0000ff", bold: undefined, dim: undefined },
    ]);
  });

  it("drops escapes other than SGR without moving the columns", () => {
    expect(parse_line(`a${ESC}?25lb${ESC}2Kc`)).toEqual([{ column: 0, text: "abc", style: {} }]);
  });
});

describe("ansi_to_svg", () => {
  it("escapes the text, places a run by its column and paints an inverse run's background", () => {
    const svg = ansi_to_svg(`\n\n  ${ESC}33m<a & b>${ESC}0m\n${ESC}7m x ${ESC}0m\n\n\n`, 10, "air demo");
    expect(svg).toContain("&lt;a &amp; b&gt;</text>");
    expect(svg).toMatch(/<text x="32\.8" y="\d+" fill="#e5e510" textLength="58\.8"/);
    expect(svg).toMatch(/<rect x="16" y="\d+" width="25\.2" height="17" fill="#d4d4d4"\/><text x="16\.0" y="\d+" fill="#1e1e1e"/);
    // Two rows of text: the empty rows around them are not drawn.
    expect(svg).toMatch(/height="94"/);
  });
});
