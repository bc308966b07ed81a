/**
 * A child process of bench/tui-stream.ts: opens a session, streams DELTAS assistant deltas through its
 * ingestor (one per millisecond), and reports on stdout what that cost this process. Mode `tui`: the App,
 * bundled as `air run` runs it (its URL is argv[3]), renders the session's projection on a terminal
 * of 120×40 (a stream that counts what it is sent); mode `bare`: the same stream with nobody watching — the ceiling.
 */
import { PassThrough, Writable } from "node:stream";
import { air, DIST } from "./dist.js";
import { temp_dir } from "./temp.js";

type Projection = typeof import("../src/projection/session-projection.js");
type TuiBundle = { App: typeof import("../src/tui/index.js").App; render: typeof import("ink").render; React: typeof import("react") };

const DELTAS = 2_000;
const mode = process.argv[2] === "tui" ? "tui" : "bare";
const tui_bundle = process.argv[3] ?? "";
if (mode === "tui" && tui_bundle === "") throw new Error("mode tui renders the bundle bench/tui-stream.ts made: its URL is the second argument");
const last_word = `word${DELTAS - 1}`;

/**
 * A terminal for ink: a TTY-looking stdout that counts bytes and tells when `awaited` text is written,
 * and a stdin that never types.
 */
function fake_terminal(awaited: string) {
  let bytes = 0;
  let shown: () => void = () => undefined;
  const written = new Promise<void>((resolve) => {
    shown = resolve;
  });
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (chunk.includes(awaited)) shown();
        done();
      },
    }),
    { isTTY: true, columns: 120, rows: 40 },
  );
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined, ref: () => undefined, unref: () => undefined });
  return { stdout, stdin, bytes: () => bytes, written };
}

async function render_app(session: import("../src/project/session-manager.js").Session, bundle: string) {
  const [{ open_session_projection }, { App, render, React }] = await Promise.all([
    import(new URL("projection/session-projection.js", DIST).href) as Promise<Projection>,
    import(bundle) as Promise<TuiBundle>,
  ]);
  const projection = open_session_projection(session);
  const terminal = fake_terminal(last_word);
  let frames = 0;
  const instance = render(
    React.createElement(App, {
      client: projection.store,
      sender: projection.channel,
      read_artifact: () => "",
      list_sessions: () => [],
      on_exit: () => undefined,
    }),
    { stdout: terminal.stdout as never, stdin: terminal.stdin as never, exitOnCtrlC: false, patchConsole: false, onRender: () => (frames += 1) },
  );
  return {
    frames: () => frames,
    bytes: terminal.bytes,
    /** Settles once a frame shows the stream's last word. */
    shown: terminal.written,
    close() {
      instance.unmount();
      projection.close();
    },
  };
}

async function main(): Promise<void> {
  const { project } = air.projects.init_project(temp_dir("tui-stream"));
  const session = air.sessions.open_session(project, { title: "stream" });
  const view = mode === "tui" ? await render_app(session, tui_bundle) : undefined;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const { make_event } = air.registry;
  const origin = { ...session.origin, source: { kind: "main" as const }, route: ["main"] };
  const message_id = air.ids.new_id("message");
  const frames_before = view?.frames() ?? 0;
  const cpu_before = process.cpuUsage();
  const started = performance.now();
  session.ingestor.ingest(make_event("assistant.message.started", { message_id }, origin));
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      session.ingestor.ingest(make_event("assistant.message.delta", { message_id, text: `word${sent} ${sent % 12 === 0 ? "\n" : ""}` }, origin));
      sent += 1;
      if (sent === DELTAS) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  // A UI is done with the stream when its last frame shows all of it.
  await view?.shown;
  const stream_ms = performance.now() - started;
  const frames = (view?.frames() ?? 0) - frames_before;
  const cpu = process.cpuUsage(cpu_before);
  view?.close();
  session.close();
  process.stdout.write(`${JSON.stringify({ mode, deltas: sent, stream_ms, frames, cpu_ms: (cpu.user + cpu.system) / 1000, bytes: view?.bytes() ?? 0 })}\n`);
}

await main();
