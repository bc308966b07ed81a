/**
 * Where the logs are fed from, besides a failed command and a failed model request (air-log.test.ts): a
 * session's recovery summary goes to air.log; an event bus handler's error, with its stack, to the developer
 * log only (seeds: "EventBus handler errors are caught, logged to developer log").
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recover_session } from "../../src/actors/runtime/recovery.js";
import { make_event, parse_event } from "../../src/contracts/events/registry.js";
import { new_id, type TaskId } from "../../src/contracts/ids.js";
import { EventBus } from "../../src/event-store/event-bus.js";
import { open_record } from "../../src/logs/developer-cipher.js";
import { log_paths } from "../../src/logs/log.js";
import { task_created_event } from "../fixtures/events.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession;
let private_key: crypto.KeyObject;
let saved_key: string | undefined;

beforeEach(() => {
  temp = open_temp_session();
  const pair = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  private_key = pair.privateKey;
  const public_file = path.join(process.env.AIR_HOME!, "test-team.pub.pem");
  fs.mkdirSync(process.env.AIR_HOME!, { recursive: true });
  fs.writeFileSync(public_file, pair.publicKey.export({ type: "spki", format: "pem" }));
  saved_key = process.env.AIR_DEVELOPER_LOG_PUBLIC_KEY;
  process.env.AIR_DEVELOPER_LOG_PUBLIC_KEY = public_file;
});
afterEach(() => {
  if (saved_key === undefined) delete process.env.AIR_DEVELOPER_LOG_PUBLIC_KEY;
  else process.env.AIR_DEVELOPER_LOG_PUBLIC_KEY = saved_key;
  temp.cleanup();
});

function air_log_lines(): string[] {
  const file = log_paths(process.env.AIR_HOME!).air_log;
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n") : [];
}

type DeveloperRecord = Record<string, unknown> & { readonly error?: { readonly stack?: string } };

function developer_records(): DeveloperRecord[] {
  const lines = fs.readFileSync(log_paths(process.env.AIR_HOME!).developer_log, "utf8").trim().split("\n");
  return lines.map((line) => JSON.parse(open_record(private_key, line)) as DeveloperRecord);
}

describe("the logs' sources", () => {
  it("a recovery that did something leaves its summary in air.log; one with nothing to do leaves nothing", () => {
    const { session } = temp;
    const created = task_created_event(session.origin);
    session.ingestor.ingest(created);
    const task_id = created.payload.task.id as TaskId;
    const agent_id = new_id("agent");
    session.ingestor.ingest(make_event("agent.started", { agent_id, agent_type: "executor", status: "running", task_id }, session.origin));
    session.ingestor.ingest(make_event("task.started", { task_id, attempt_id: new_id("attempt"), agent_id }, session.origin));

    recover_session(session);
    recover_session(session);

    const lines = air_log_lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`INFO \\[recovery\\] session ${session.id} recovered: 1 lost agent\\(s\\), 1 task\\(s\\) requeued, 0 open run\\(s\\) closed$`),
    );
    expect(developer_records()[0]).toMatchObject({ area: "recovery", data: { lost_agents: [agent_id], requeued_tasks: [task_id] } });
  });

  it("an event bus handler that throws is recorded, stack and all, in the developer log and not in air.log", () => {
    const bus = new EventBus();
    bus.subscribe({}, () => {
      throw new Error("projection handler bug");
    });
    const event = parse_event(make_event("requirement.changed", { requirement_id: new_id("requirement"), description: "one" }, temp.session.origin));
    expect(() => bus.publish(event)).not.toThrow();

    expect(air_log_lines()).toEqual([]);
    const [record] = developer_records();
    expect(record).toMatchObject({ level: "warning", area: "event_bus", message: `event bus handler failed on requirement.changed ${event.id}` });
    expect(record?.error).toMatchObject({ name: "Error", message: "projection handler bug" });
    expect(record?.error?.stack).toContain("log-sources.test.ts");
  });
});
