/**
 * A session's title from the user's first message: the rule, and the `session.renamed` event that records
 * it in a real session database so `air session list` and `/sessions` show it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { list_sessions } from "../../src/project/session-catalog.js";
import { name_unnamed_session, session_title, UNNAMED_SESSION } from "../../src/project/session-title.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

describe("session_title", () => {
  it("is the first line with text, trimmed", () => {
    expect(session_title("  Fix the flaky parser test  \nIt fails one run in ten.")).toBe("Fix the flaky parser test");
    expect(session_title("\n\n   \r\n  why is CI red?\n")).toBe("why is CI red?");
  });

  it("cuts a long line at a word boundary, to at most 60 characters with an ellipsis", () => {
    const title = session_title("Refactor the tokenizer so that every keyword is looked up in one table instead of three");
    expect(title).toBe("Refactor the tokenizer so that every keyword is looked up…");
    expect([...title].length).toBeLessThanOrEqual(60);
  });

  it("cuts mid-word when the first word alone is longer than the title", () => {
    const title = session_title(`${"x".repeat(100)} tail`);
    expect(title).toBe(`${"x".repeat(59)}…`);
  });

  it("makes tabs, escapes and other control characters single spaces", () => {
    expect(session_title("run\tthe \u001b[31mtests\u001b[0m\u0007 now")).toBe("run the [31mtests [0m now");
  });

  it("keeps the unnamed title for a message without text", () => {
    expect(session_title(" \n\t\n")).toBe(UNNAMED_SESSION);
  });
});

describe("name_unnamed_session", () => {
  let temp: TempSession | undefined;
  afterEach(() => {
    temp?.cleanup();
    temp = undefined;
  });

  it("renames an unnamed session after the message, once, and the session list shows it", async () => {
    temp = open_temp_session({ title: UNNAMED_SESSION });
    const { session } = temp;

    name_unnamed_session(session, "Add a --json flag to air tasks\nwith the usage per task");
    name_unnamed_session(session, "and also the cost");

    const renamed = session.store.query({ types: ["session.renamed"] }).map(({ event }) => event.payload);
    expect(renamed).toEqual([{ title: "Add a --json flag to air tasks" }]);
    const { sessions } = await list_sessions(session.project.layout);
    expect(sessions.map((summary) => summary.title)).toEqual(["Add a --json flag to air tasks"]);
  });

  it("leaves a session that has a title of its own", () => {
    temp = open_temp_session({ title: "air doctor --fix" });
    name_unnamed_session(temp.session, "something else");
    expect(temp.session.store.query({ types: ["session.renamed"] })).toEqual([]);
  });
});
