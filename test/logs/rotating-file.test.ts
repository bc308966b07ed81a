/**
 * A log rotated by size: `air.log` → `air.log.1` → … → `air.log.<keep>`, the oldest dropped, no line split
 * between two files, and no file made until the first record.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_ROTATION, RotatingFile } from "../../src/logs/rotating-file.js";

let temp: string;
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-rotate-"));
});
afterEach(() => {
  fs.rmSync(temp, { recursive: true, force: true });
});

const line = (index: number) => `${`record ${index} `.padEnd(99, ".")}\n`;

describe("RotatingFile", () => {
  it("makes its folder and file only when the first record is appended", () => {
    const log = new RotatingFile(path.join(temp, "logs", "air.log"));
    expect(fs.existsSync(path.join(temp, "logs"))).toBe(false);
    expect(log.files()).toEqual([]);
    log.append(line(0));
    expect(fs.readFileSync(log.file, "utf8")).toBe(line(0));
    expect(fs.statSync(log.file).mode & 0o777).toBe(0o600);
  });

  it("rotates when the next record would pass the size limit, keeping `keep` old files and dropping the oldest", () => {
    const log = new RotatingFile(path.join(temp, "air.log"), { max_bytes: 1000, keep: 2 });
    for (let index = 0; index < 35; index++) log.append(line(index));

    expect(log.files()).toEqual([log.file, `${log.file}.1`, `${log.file}.2`]);
    expect(fs.existsSync(`${log.file}.3`)).toBe(false);
    const sizes = log.files().map((file) => fs.statSync(file).size);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(1000);
    // Ten 100-byte records fill a file; the newest five are live, the twenty before are rotated, the rest dropped.
    const kept = [`${log.file}.2`, `${log.file}.1`, log.file].map((file) => fs.readFileSync(file, "utf8")).join("");
    expect(kept).toBe(Array.from({ length: 25 }, (_, index) => line(index + 10)).join(""));
  });

  it("rotates a file another process grew, since the size is read before each record", () => {
    const log = new RotatingFile(path.join(temp, "air.log"), { max_bytes: 1000, keep: 1 });
    log.append(line(0));
    fs.appendFileSync(log.file, "x".repeat(950));
    log.append(line(1));
    expect(fs.readFileSync(log.file, "utf8")).toBe(line(1));
    expect(fs.readFileSync(`${log.file}.1`, "utf8")).toBe(line(0) + "x".repeat(950));
  });

  it("by default rotates at 5 MiB and keeps three old files", () => {
    expect(DEFAULT_ROTATION).toEqual({ max_bytes: 5 * 1024 * 1024, keep: 3 });
  });
});
