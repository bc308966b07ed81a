/**
 * The Architecture Designer against the scripted model server: its one model call is a recorded
 * `model.complete` run with requester "architect", offered only `submit_impact`, with the plan pack and the change
 * in context; an answer off the schema gets one correction turn, a second is a clear architecture_error.
 */
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { make_architecture_designer } from "../../src/architecture/designer.js";
import type { ImpactRequest } from "../../src/contracts/architecture.js";
import { AirFailure } from "../../src/contracts/errors.js";
import { new_id } from "../../src/contracts/ids.js";
import { PermissionEngine } from "../../src/permissions/engine.js";
import { ProviderManager } from "../../src/providers/manager.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { model_complete_tool } from "../../src/tools/model/complete.js";
import { open_temp_session, set_air_home, type TempSession } from "../fixtures/session.js";

const KEY = "sk-architect-test";
const TASK_ID = new_id("task");

const REQUEST: ImpactRequest = {
  summary: 'task "Widen add" changed the public header',
  triggers: [{ kind: "public_interface", detail: "public interface include/calc.h changed (+1 −1 lines)", file: "include/calc.h" }],
  change: "diff --git a/include/calc.h b/include/calc.h\n-int add(int a, int b);\n+long add(long a, long b);\n",
  task_ids: [TASK_ID],
  evidence_refs: [],
};

const submit = (input: Record<string, unknown>) => ({ reply: { content: [{ type: "tool_use" as const, id: "toolu_1", name: "submit_impact", input }] } });
const GOOD = { result_class: "silent_continue", summary: "add widens consistently with the plan", impacted_task_ids: [] };

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function designer_with(
  turns: ScriptInput["turns"],
): Promise<{ temp: TempSession; server: ScriptedServer; designer: ReturnType<typeof make_architecture_designer> }> {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  cleanups.push(set_air_home(path.join(temp.root, "air-home")));
  fs.mkdirSync(temp.project.layout.plan, { recursive: true });
  fs.writeFileSync(path.join(temp.project.layout.plan, "architecture.md"), "# Architecture\ncalc exposes add(int, int) in include/calc.h.\n");
  const server = await start_scripted_server({ script: { turns }, api_key: KEY });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const registry = create_tool_registry({ permissions: new PermissionEngine() });
  registry.register(model_complete_tool(providers.for_session()));
  return { temp, server, designer: make_architecture_designer({ session: temp.session, registry, mode: "default" }) };
}

const system_text = (body: unknown): string => JSON.stringify(v.parse(v.object({ system: v.unknown() }), body).system);
const Offered = v.object({ tools: v.array(v.object({ name: v.string() })) });

describe("ArchitectureDesigner", () => {
  it("assesses a change in one recorded model.complete call as requester architect, with the plan and the change in context", async () => {
    const { temp, server, designer } = await designer_with({ architect: [submit(GOOD)] });
    expect(await designer.assess(REQUEST)).toEqual(GOOD);
    const [request] = server.requests();
    expect(request?.requester).toBe("architect");
    expect(system_text(request?.body)).toContain("You are the Architecture Designer");
    expect(system_text(request?.body)).toContain("calc exposes add(int, int)");
    const body = JSON.stringify(request?.body);
    expect(body).toContain("long add(long a, long b);");
    expect(body).toContain("public_interface: public interface include/calc.h changed");
    expect(v.parse(Offered, request?.body).tools.map((tool) => tool.name)).toEqual(["submit_impact"]);
    const runs = temp.session.store.query({ types: ["tool.started", "tool.completed"] });
    expect(runs.map(({ event }) => (event.type === "tool.started" ? event.payload.tool_name : event.type))).toEqual(["model.complete", "tool.completed"]);
  });

  it("gives an answer off the schema one correction turn that says why, and takes the corrected answer", async () => {
    const { server, designer } = await designer_with({
      architect: [submit({ result_class: "fine", summary: "ok", impacted_task_ids: [] }), submit({ ...GOOD, impacted_task_ids: [TASK_ID] })],
    });
    expect(await designer.assess(REQUEST)).toEqual({ ...GOOD, impacted_task_ids: [TASK_ID] });
    const [, correction] = server.requests();
    const body = JSON.stringify(correction?.body);
    expect(body).toContain("does not fit its schema");
    expect(body).toContain("Call submit_impact again, corrected.");
  });

  it("refuses an answer that names tasks it was not asked about", async () => {
    const { server, designer } = await designer_with({
      architect: [submit({ ...GOOD, result_class: "requires_replan", impacted_task_ids: [new_id("task")] }), submit(GOOD)],
    });
    expect(await designer.assess(REQUEST)).toEqual(GOOD);
    expect(JSON.stringify(server.requests()[1]?.body)).toContain("impacted_task_ids names tasks the request did not");
  });

  it("fails with a clear architecture_error when the corrected answer is off the schema too", async () => {
    const { server, designer } = await designer_with({
      architect: [{ reply: { content: [{ type: "text" as const, text: "Looks fine to me." }] } }, submit({ summary: "" })],
    });
    const failure = await designer.assess(REQUEST).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AirFailure);
    const error = failure instanceof AirFailure ? failure.error : undefined;
    expect(error?.kind).toBe("architecture_error");
    expect(error?.message).toMatch(/^the Architecture Designer's answer was refused twice: the submit_impact input does not fit its schema/);
    expect(JSON.stringify(server.requests()[1]?.body)).toContain("the answer did not call submit_impact");
    expect(server.requests()).toHaveLength(2);
  });
});
