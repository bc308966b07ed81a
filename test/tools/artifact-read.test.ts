/**
 * artifact.read: an artifact of the current session by id, by lines or bytes, within a size cap — and
 * never anything else: unknown ids, other sessions' artifacts, missing files, and database paths (or
 * symlinks) that lead out of the session's artifacts folder are clear errors.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { open_session } from "../../src/project/session-manager.js";
import { error_of, output_of, tool_harness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness();
});
afterEach(() => h.cleanup());

type ReadOutput = {
  id: string;
  type: string;
  size_bytes: number;
  unit: string;
  content: string;
  encoding: string;
  start: number;
  end: number;
  total_lines?: number;
  truncated: boolean;
};

function artifact(content: string | Uint8Array, type: "command_log" | "diff" = "command_log"): string {
  return h.temp.session.artifacts.create({ type, content, original_name: "out.log" }).id;
}

function file_of(id: string): string {
  const row = h.artifacts().find((candidate) => candidate.id === id)!;
  return h.temp.session.artifacts.path_of(String(row.path));
}

function set_column(id: string, column: "path" | "session_id", value: string): void {
  h.temp.session.connection.client.prepare(`UPDATE artifacts SET ${column} = ? WHERE id = ?`).run(value, id);
}

const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}\n`).join("");

describe("artifact.read", () => {
  it("returns a whole small artifact with its description", async () => {
    const id = artifact("alpha\nbeta\n");
    const output = output_of<ReadOutput>(await h.call("artifact.read", { id }));
    expect(output).toMatchObject({
      id,
      type: "command_log",
      size_bytes: 11,
      unit: "lines",
      content: "alpha\nbeta\n",
      encoding: "utf8",
      start: 1,
      end: 2,
      total_lines: 2,
      truncated: false,
    });
  });

  it("returns a window of lines from offset, with the total, marked truncated", async () => {
    const id = artifact(numbered(10));
    const output = output_of<ReadOutput>(await h.call("artifact.read", { id, offset: 3, limit: 2 }));
    expect(output).toMatchObject({ content: "line 3\nline 4\n", start: 3, end: 4, total_lines: 10, truncated: true });
    const past = output_of<ReadOutput>(await h.call("artifact.read", { id, offset: 50 }));
    expect(past).toMatchObject({ content: "", start: 0, end: 0, total_lines: 10, truncated: true });
    const unterminated = artifact("a\nlast without newline");
    expect(output_of<ReadOutput>(await h.call("artifact.read", { id: unterminated, offset: 2 }))).toMatchObject({
      content: "last without newline",
      start: 2,
      end: 2,
      total_lines: 2,
    });
  });

  it("reads the end of a large artifact without holding it whole, and caps the characters returned", async () => {
    const id = artifact(numbered(300_000));
    const tail = output_of<ReadOutput>(await h.call("artifact.read", { id, offset: 299_999 }));
    expect(tail).toMatchObject({ content: "line 299999\nline 300000\n", start: 299_999, end: 300_000, total_lines: 300_000 });

    const capped = output_of<ReadOutput>(await h.call("artifact.read", { id, limit: 100_000 }));
    expect(capped.content.length).toBeLessThanOrEqual(256 * 1024);
    expect(capped.content.endsWith("\n")).toBe(true);
    expect(capped).toMatchObject({ start: 1, truncated: true });
    expect(capped.end).toBe(capped.content.split("\n").length - 1);

    const one_line = artifact("x".repeat(300 * 1024));
    const cut = output_of<ReadOutput>(await h.call("artifact.read", { id: one_line }));
    expect(cut).toMatchObject({ start: 1, end: 1, truncated: true });
    expect(cut.content.length).toBe(256 * 1024);
  });

  it("reads bytes from an offset, base64 when they are not text, and refuses a binary artifact by lines", async () => {
    const text = artifact("0123456789");
    expect(output_of<ReadOutput>(await h.call("artifact.read", { id: text, unit: "bytes", offset: 2, limit: 3 }))).toMatchObject({
      content: "234",
      encoding: "utf8",
      start: 2,
      end: 5,
      truncated: true,
    });
    const binary = artifact(Buffer.from([0, 1, 2, 255]));
    expect(output_of<ReadOutput>(await h.call("artifact.read", { id: binary, unit: "bytes" }))).toMatchObject({
      content: "AAEC/w==",
      encoding: "base64",
      truncated: false,
    });
    const error = error_of(await h.call("artifact.read", { id: binary }));
    expect(error.message).toContain("is binary");
    expect(error.user_action).toContain('unit: "bytes"');
  });

  it("fails clearly for an unknown id, and for a malformed one before anything runs", async () => {
    const unknown = error_of(await h.call("artifact.read", { id: "art_01ARZ3NDEKTSV4RRFFQ69G5FAV" }));
    expect(unknown).toMatchObject({ kind: "tool_error", message: "no artifact art_01ARZ3NDEKTSV4RRFFQ69G5FAV in this session" });
    expect(error_of(await h.call("artifact.read", { id: "../../etc/passwd" })).message).toContain("fails its schema");
  });

  it("does not read another session's artifact, nor a row that claims another session", async () => {
    const other = open_session(h.temp.project, { title: "other session" });
    let foreign: string;
    try {
      foreign = other.artifacts.create({ type: "command_log", content: "other session's output\n" }).id;
    } finally {
      other.close();
    }
    expect(error_of(await h.call("artifact.read", { id: foreign })).message).toBe(`no artifact ${foreign} in this session`);

    const id = artifact("mine\n");
    set_column(id, "session_id", "ses_01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(error_of(await h.call("artifact.read", { id })).message).toBe(`no artifact ${id} in this session`);
  });

  it("says the file is missing when it was deleted from disk", async () => {
    const id = artifact("gone\n");
    fs.rmSync(file_of(id));
    const error = error_of(await h.call("artifact.read", { id }));
    expect(error).toMatchObject({ kind: "tool_error", message: `the file of artifact ${id} is missing` });
  });

  it("refuses a recorded path that leaves the artifacts folder: ../, absolute, or a symlink out", async () => {
    const secret = path.join(h.outside, "secret.txt");
    fs.writeFileSync(secret, "TOP SECRET\n");
    const id = artifact("harmless\n");
    for (const tampered of ["../../../../../../secret.txt", path.relative(path.dirname(file_of(id)), secret), secret, "..", ""]) {
      set_column(id, "path", tampered);
      const error = error_of(await h.call("artifact.read", { id }));
      expect(error.kind).toBe("policy_error");
      expect(JSON.stringify(error)).not.toContain("TOP SECRET");
    }

    const linked = artifact("to be replaced\n");
    const file = file_of(linked);
    fs.rmSync(file);
    fs.symlinkSync(secret, file);
    const error = error_of(await h.call("artifact.read", { id: linked }));
    expect(error).toMatchObject({ kind: "policy_error" });
    expect(error.message).toContain("outside the session's artifacts folder");
  });
});
