/**
 * `~/.air/project-index.db` and `air session list --all-projects`: every project air has opened, with its
 * sessions, from any folder; a project whose folder is gone is left out.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_session_list } from "../../src/cli/commands/session-list.js";
import type { Io } from "../../src/cli/output.js";
import { list_indexed_projects, project_index_path, record_project_opened } from "../../src/project/project-index.js";
import { init_project, type Project } from "../../src/project/project-store.js";
import { open_session } from "../../src/project/session-manager.js";
import { set_air_home } from "../fixtures/session.js";

let temp: string;
let home: string;
let restore_home: () => void;
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-session-list-"));
  home = path.join(temp, "air-home");
  restore_home = set_air_home(home);
});
afterEach(() => {
  restore_home();
  fs.rmSync(temp, { recursive: true, force: true });
});

function project_named(name: string): Project {
  return init_project(path.join(temp, name), { name }).project;
}

function session_in(project: Project, title: string): string {
  const session = open_session(project, { title });
  session.close();
  return session.id;
}

async function listing(options: { json: boolean; all_projects?: boolean }, cwd = temp): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (text) => (out += text), err: (text) => (err += text), cwd };
  const code = await run_session_list(io, options);
  return { code, out, err };
}

describe("the project index", () => {
  it("is not created by reading it", async () => {
    expect(await list_indexed_projects(home)).toEqual([]);
    expect(fs.existsSync(project_index_path(home))).toBe(false);
  });

  it("keeps one row per project folder, most recently opened first, updated when opened again", async () => {
    const alpha = project_named("alpha");
    const beta = project_named("beta");
    await record_project_opened(alpha, home);
    const first_opened = (await list_indexed_projects(home))[0]!.first_opened_at;
    await record_project_opened(beta, home);
    await record_project_opened(alpha, home);
    const projects = await list_indexed_projects(home);
    expect(projects[0]!.first_opened_at).toBe(first_opened);
    expect(projects.map((p) => [p.name, p.root, p.project_id])).toEqual([
      ["alpha", alpha.layout.root, alpha.file.project_id],
      ["beta", beta.layout.root, beta.file.project_id],
    ]);
    expect(projects[0]!.first_opened_at <= projects[0]!.last_opened_at).toBe(true);
  });

  it("keeps two clones of one project (one project id, two folders) apart", async () => {
    const original = project_named("original");
    const clone_root = path.join(temp, "clone");
    fs.cpSync(original.layout.air, path.join(clone_root, ".air"), { recursive: true });
    await record_project_opened(original, home);
    await record_project_opened(init_project(clone_root).project, home);
    expect((await list_indexed_projects(home)).map((p) => p.root).sort()).toEqual([clone_root, original.layout.root].sort());
  });
});

describe("air session list --all-projects", () => {
  it("lists the sessions of every indexed project, from outside any project", async () => {
    const alpha = project_named("alpha");
    const beta = project_named("beta");
    const first = session_in(alpha, "fix the parser");
    const second = session_in(beta, "add a test");
    await record_project_opened(alpha);
    await record_project_opened(beta);

    const text = await listing({ json: false, all_projects: true });
    expect(text.code).toBe(0);
    expect(text.out.split("\n")[0]).toMatch(/^PROJECT\s+ROOT\s+ID\s+CREATED\s+STATUS/);
    expect(text.out).toMatch(new RegExp(`beta\\s+${beta.layout.root}\\s+${second}.*add a test`));
    expect(text.out).toMatch(new RegExp(`alpha\\s+${alpha.layout.root}\\s+${first}.*fix the parser`));

    const json = JSON.parse((await listing({ json: true, all_projects: true })).out) as { projects: { name: string; sessions: { id: string }[] }[] };
    expect(json.projects.map((p) => [p.name, p.sessions.map((s) => s.id)])).toEqual([
      ["beta", [second]],
      ["alpha", [first]],
    ]);
  });

  it("leaves out a project whose folder was deleted", async () => {
    const kept = project_named("kept");
    const gone = project_named("gone");
    session_in(kept, "still here");
    session_in(gone, "about to vanish");
    await record_project_opened(kept);
    await record_project_opened(gone);
    fs.rmSync(gone.layout.root, { recursive: true });

    const json = JSON.parse((await listing({ json: true, all_projects: true })).out) as { projects: { name: string }[] };
    expect(json.projects.map((p) => p.name)).toEqual(["kept"]);
  });

  it("says so when air has opened no project yet", async () => {
    expect(await listing({ json: false, all_projects: true })).toEqual({
      code: 0,
      out: "No projects yet: air lists a project once it has opened it.\n",
      err: "",
    });
  });

  it("without the flag still lists only the project at the working folder", async () => {
    const alpha = project_named("alpha");
    const beta = project_named("beta");
    const mine = session_in(alpha, "mine");
    session_in(beta, "not mine");
    await record_project_opened(beta);
    const out = (await listing({ json: false }, alpha.layout.root)).out;
    expect(out).toContain(mine);
    expect(out).not.toContain("not mine");
  });
});
