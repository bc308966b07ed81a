/**
 * `npm run readme:picture`: the README's pictures of the TUI, made from a real run. The built `air demo` runs
 * in a tmux pane of fixed size (the e2e tests' harness) with no key and an AIR_HOME of its own; the
 * script presses what a person would — Enter, `y` at the permission prompt, Ctrl+C twice — and captures
 * the pane with its colours at the prompt and at the final summary, as SVG files in docs/.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { COLUMNS, leave_with_ctrl_c_twice, screen_shows, taking_keys, Tmux, tmux_available } from "../test/fixtures/tmux.js";
import { AIR_BIN, REPO_ROOT } from "../test/fixtures/cli.js";
import { ansi_to_svg } from "./ansi-svg.js";

const DOCS = path.join(REPO_ROOT, "docs");
const PANE = "demo";
/** What each picture waits for: the dialog of the edit, then the run's last message. */
const ASKING = /fs\.edit[\s\S]*Allow once/;
const FINISHED = /Task "[^"]+" is completed|Task completed/;

/** A newcomer's environment: no provider key, model or server, no CI; an AIR_HOME of the script's own. */
function newcomer_env(work: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(ANTHROPIC_|OPENAI_|OPENROUTER_|AIR_)/.test(name) || name === "CI" || name === "TMUX") continue;
    env[name] = value;
  }
  return { ...env, AIR_HOME: path.join(work, "air-home"), TERM: "xterm-256color" };
}

/** The visible pane with its colours, once it has stopped changing (a spinner never does: 5 s at most). */
async function settled_capture(tmux: Tmux): Promise<string> {
  let last = tmux.run("capture-pane", "-e", "-p", "-t", PANE);
  for (let waited = 0; waited < 5_000; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = tmux.run("capture-pane", "-e", "-p", "-t", PANE);
    if (now === last) break;
    last = now;
  }
  return last;
}

function write_picture(name: string, capture: string): void {
  const file = path.join(DOCS, name);
  fs.writeFileSync(file, ansi_to_svg(capture, COLUMNS, "air demo"));
  console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
}

async function main(): Promise<void> {
  if (!tmux_available) throw new Error("tmux is not installed: the pictures are captured from a tmux pane");
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "cli", "main.js"))) throw new Error("dist/ is missing: run `npm run build` first");
  fs.mkdirSync(DOCS, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "air-readme-picture-"));
  const cwd = path.join(work, "cwd");
  for (const dir of [cwd, path.join(work, "air-home")]) fs.mkdirSync(dir);
  const tmux = new Tmux(newcomer_env(work));
  try {
    tmux.start(PANE, cwd, `'${process.execPath}' '${AIR_BIN}' demo`);
    await screen_shows(tmux, PANE, "the requirement typed into the prompt line", /› \S/, 60_000);
    await taking_keys(tmux, PANE);
    tmux.keys(PANE, "Enter");
    await screen_shows(tmux, PANE, "the permission prompt of the edit", ASKING, 60_000);
    write_picture("tui-permission.svg", await settled_capture(tmux));
    tmux.keys(PANE, "y");
    await screen_shows(tmux, PANE, "the final summary", FINISHED, 120_000);
    write_picture("tui-summary.svg", await settled_capture(tmux));
    await leave_with_ctrl_c_twice(tmux, PANE);
    await screen_shows(tmux, PANE, "air leaving", /\[air exited 0\]/);
  } finally {
    tmux.kill();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
