import * as v from "valibot";
import { ArtifactId, DoctorRunId } from "../ids.js";
import { durable } from "./define.js";
import { Count, NonEmpty, Reason } from "./common.js";

const DoctorMode = v.picklist(["read_only", "fix", "bundle"]);
const DoctorCheckOutcome = v.picklist(["ok", "warning", "error", "skipped"]);

export const doctor_events = {
  "doctor.run.started": durable(v.strictObject({ run_id: DoctorRunId, mode: DoctorMode }), "A doctor run began."),
  "doctor.check.completed": durable(
    v.strictObject({ run_id: DoctorRunId, check_id: NonEmpty, outcome: DoctorCheckOutcome, message: Reason }),
    "One doctor check's outcome.",
  ),
  "doctor.fix.applied": durable(
    v.strictObject({
      run_id: DoctorRunId,
      check_id: NonEmpty,
      action: Reason,
      succeeded: v.boolean(),
    }),
    "A fix ran under the permission engine.",
  ),
  "doctor.run.completed": durable(
    v.strictObject({ run_id: DoctorRunId, issues: Count, report_artifact_id: v.optional(ArtifactId) }),
    "A doctor run finished; the report is an artifact.",
  ),
} as const;
