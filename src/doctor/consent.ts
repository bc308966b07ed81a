import fs from "node:fs";
import path from "node:path";
import type { PermissionPrompt, PromptAnswer, PromptAnswerer } from "../permissions/prompts.js";
import type { FixStep } from "./plan.js";

/** Present once a fix has run on this machine: from then on, D-045's first-startup question is not asked again. */
export function first_fix_marker(air_home: string): string {
  return path.join(air_home, "doctor-first-fix-done");
}

export function first_fix_pending(air_home: string): boolean {
  return !fs.existsSync(first_fix_marker(air_home));
}

export function mark_first_fix_done(air_home: string): void {
  fs.mkdirSync(air_home, { recursive: true });
  fs.writeFileSync(first_fix_marker(air_home), `${new Date().toISOString()}\n`);
}

/** Who answers doctor's questions: a terminal prompt, or nobody (no TTY). `--yes` is `yes`. */
export type FixAsker = { readonly yes: boolean; readonly ask?: (question: string) => Promise<boolean> };

export type StepAnswer = { readonly allowed: boolean; readonly how: string };

/** D-045's answer for one step: `confirm` only from a person at a terminal, `ask` from them or `--yes`. */
export async function answer_step(step: FixStep, asker: FixAsker): Promise<StepAnswer> {
  if (step.consent === "run" || step.consent === "announce") return { allowed: true, how: step.why };
  const question = `Run \`${step.command}\` to install ${step.fixes.join(", ")}? (${step.why})`;
  if (step.consent === "ask" && asker.yes) return { allowed: true, how: "--yes" };
  if (asker.ask === undefined) {
    const why = step.consent === "confirm" ? `${step.why}; --yes does not give it` : "no terminal to ask and no --yes";
    return { allowed: false, how: `not asked: ${why}` };
  }
  const allowed = await asker.ask(question);
  return { allowed, how: allowed ? "confirmed at the prompt" : "denied at the prompt" };
}

/**
 * The permission engine's answerer for doctor's registry: a prompt about exactly the command the user just
 * consented to is allowed once (they already saw that command line); every other prompt is denied.
 */
export class ConsentedCommand implements PromptAnswerer {
  #command: string | undefined;

  allow(command: string | undefined): void {
    this.#command = command;
  }

  async answer(prompt: PermissionPrompt): Promise<PromptAnswer> {
    const consented = this.#command;
    const covered = consented !== undefined && prompt.commands.length > 0 && prompt.commands.every((command) => consented.includes(command));
    if (covered) return { answer: "allow", grant_scope: "once", resolved_by: "user", note: "consented at air doctor --fix" };
    return { answer: "deny", grant_scope: "once", resolved_by: "policy", note: "not a command the user consented to at air doctor --fix" };
  }
}
