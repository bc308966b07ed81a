import type { AirError } from "../../contracts/errors.js";
import type { Risk, VerificationResult, WorkerStatus } from "../../contracts/worker-result.js";

/** How a task run's model loop ended. */
export type Ending = "end_turn" | "max_turns" | "wrapped_up" | "refusal" | "truncated" | "cancelled" | "error";

/** What the words of a finished run are made of. */
export type RunFacts = {
  readonly max_turns: number;
  readonly turns: number;
  readonly wrap_up_reason: string | undefined;
  readonly cancel_reason: string | undefined;
  readonly failure: AirError | undefined;
  readonly changed_files: readonly string[];
  readonly verification: readonly VerificationResult[];
  readonly risks: readonly Risk[];
};

/** The risk an unfinished ending leaves, for whoever merges or retries the work. */
export function ending_risk(ending: Ending, facts: RunFacts): Risk | undefined {
  switch (ending) {
    case "max_turns":
      return {
        severity: "medium",
        description: `The turn budget of ${facts.max_turns} ran out before the model finished.`,
        mitigation: "Split the task or raise max_turns.",
      };
    case "wrapped_up":
      return {
        severity: "medium",
        description: `The run was asked to wrap up before the model finished (${facts.wrap_up_reason ?? "soft timeout"}); the work may be partial.`,
        mitigation: "Resume or split the task, or raise constraints.soft_timeout_ms.",
      };
    case "refusal":
      return { severity: "high", description: "The model refused to continue the task.", mitigation: "Review the task; a decision may be missing." };
    case "truncated":
      return { severity: "medium", description: "The model's answer was cut off before it finished." };
    case "error":
      return facts.failure === undefined ? undefined : { severity: "high", description: `The run stopped on an error: ${facts.failure.message}` };
    default:
      return undefined;
  }
}

/** The words of a run's summary are the model's own; past this many characters they are cut at a sentence. */
const MODEL_SUMMARY_MAX_CHARS = 1200;

/** `text` cut to `max` characters at its last sentence end (else word) before the cut, marked with an ellipsis. */
function cut_at_sentence(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const sentence = Math.max(head.lastIndexOf(". "), head.lastIndexOf(".\n"), head.lastIndexOf("! "), head.lastIndexOf("? "));
  if (sentence > max / 2) return `${head.slice(0, sentence + 1)} …`;
  const word = head.lastIndexOf(" ");
  return `${head.slice(0, word > max / 2 ? word : max)} …`;
}

/**
 * The WorkerResult's summary (seeds 001 D-042: a few sentences for people): the model's closing text when it
 * said something, followed by the run's own account when the run did not complete as the model ended it (its
 * words may claim a success the verification refuted); the run's account alone when the model said nothing.
 */
export function worker_summary(closing_text: string, status: WorkerStatus, ending: Ending, facts: RunFacts): string {
  const words = closing_text.trim();
  if (words === "") return run_summary(status, ending, facts);
  const said = cut_at_sentence(words, MODEL_SUMMARY_MAX_CHARS);
  return status === "completed" && ending === "end_turn" ? said : `${said}\n\n${run_summary(status, ending, facts)}`;
}

function run_summary(status: WorkerStatus, ending: Ending, facts: RunFacts): string {
  const how: Record<Ending, string> = {
    end_turn: "The model finished the task",
    max_turns: `The turn budget of ${facts.max_turns} ran out`,
    wrapped_up: "The run wrapped up at its soft timeout",
    refusal: "The model refused to continue",
    truncated: "The model's answer was cut off",
    cancelled: `The run was cancelled (${facts.cancel_reason ?? "by the parent"})`,
    error: `The run stopped on an error: ${facts.failure?.message ?? "unknown"}`,
  };
  const files =
    facts.changed_files.length === 0 ? "No files were changed." : `Changed ${facts.changed_files.length} file(s): ${facts.changed_files.join(", ")}.`;
  const ran = facts.verification.length;
  const passed = facts.verification.filter((result) => result.passed).length;
  const verification = ran === 0 ? "No verification command ran." : `Verification: ${passed} of ${ran} command(s) passed.`;
  const risks = facts.risks.length === 0 ? "" : ` Risks: ${facts.risks.map((risk) => risk.description).join(" ")}`;
  return `${how[ending]} after ${facts.turns} turn(s). ${files} ${verification} Status: ${status}.${risks}`;
}
