import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { read_air_config } from "../../src/cli/wizard/air-config.js";
import { expect_air_failure } from "../fixtures/failures.js";

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "air-miner-config-"));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const BASE = "version: 1\nprovider: anthropic\nmodel: claude-sonnet-4-5\npermission_mode: default\n";

describe("experience_miner in ~/.air/config.yaml", () => {
  it("reads the switch and the tool-call interval", () => {
    fs.writeFileSync(path.join(home, "config.yaml"), `${BASE}experience_miner: { enabled: true, every_n_tool_calls: 5 }\n`);
    expect(read_air_config(home)?.experience_miner).toEqual({ enabled: true, every_n_tool_calls: 5 });
  });

  it("refuses an interval under 1 and a misspelt key", () => {
    fs.writeFileSync(path.join(home, "config.yaml"), `${BASE}experience_miner: { every_n_tool_calls: 0 }\n`);
    expect(expect_air_failure(() => read_air_config(home)).error.message).toContain("experience_miner.every_n_tool_calls");
    fs.writeFileSync(path.join(home, "config.yaml"), `${BASE}experience_miner: { enable: true }\n`);
    expect(expect_air_failure(() => read_air_config(home)).error.message).toContain("experience_miner.enable: unknown key");
  });
});
