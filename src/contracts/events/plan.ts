import * as v from "valibot";
import { TaskSpec } from "../task.js";
import { ephemeral } from "./define.js";

export const plan_events = {
  "plan.proposed": ephemeral(
    v.strictObject({
      tasks: v.pipe(v.array(TaskSpec), v.minLength(1)),
      /** The plan waits for the user's approval before anything is recorded. */
      awaiting_confirmation: v.boolean(),
    }),
    "The Main Agent's validated plan, shown before its tasks are recorded (and, interactively, confirmed).",
  ),
} as const;
