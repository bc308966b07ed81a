import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import YAML from "yaml";
import { air_failure, type AirFailure } from "../../contracts/errors.js";
import type { ProjectLayout } from "../../project/layout.js";

/**
 * Compaction rules (seeds 001 D-047): Markdown with YAML front matter, inherited built-in → user template
 * (`~/.air/compaction-rules.md`) → project override (`.air/shared/compaction-rules.md`). The front matter holds
 * settings, the Markdown body the instructions given to the compactor model.
 */

const Ratio = v.pipe(v.number(), v.gtValue(0), v.maxValue(1));
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Positive = v.pipe(v.number(), v.integer(), v.minValue(1));

/** What the ContextClassifier does with a kind of message; `drop_if_needed` may go because originals are kept. */
const Treatment = v.picklist(["summarize", "drop_if_needed"]);

/** The kinds of content the classifier tells apart in a conversation. */
export type MessageKind = "user_text" | "assistant_text" | "tool_use" | "tool_result" | "tool_error";

const Pin = v.strictObject({
  project_rules: v.optional(v.boolean()),
  task_list: v.optional(v.boolean()),
  blockers: v.optional(v.boolean()),
  files_touched: v.optional(v.boolean()),
});

/** One tier's front matter: every key optional, unknown keys refused (a typo must not be ignored). */
const RuleFileSettings = v.strictObject({
  version: v.optional(v.literal(1)),
  /** How this file's body relates to the tiers below: added after their instructions, or instead of them. */
  instructions: v.optional(v.picklist(["append", "replace"])),
  threshold_ratio: v.optional(Ratio),
  keep_recent_turns: v.optional(Count),
  min_covered_messages: v.optional(Positive),
  max_summary_tokens: v.optional(Positive),
  max_compactor_input_tokens: v.optional(Positive),
  circuit_breaker: v.optional(v.strictObject({ max_compactions: v.optional(Positive), min_turns_between: v.optional(Count) })),
  pin: v.optional(Pin),
  classify: v.optional(
    v.strictObject({
      user_text: v.optional(Treatment),
      assistant_text: v.optional(Treatment),
      tool_use: v.optional(Treatment),
      tool_result: v.optional(Treatment),
      tool_error: v.optional(Treatment),
    }),
  ),
});
type RuleFileSettings = v.InferOutput<typeof RuleFileSettings>;

/** The merged settings: after the built-in tier every key has a value. */
export const CompactionSettings = v.strictObject({
  threshold_ratio: Ratio,
  keep_recent_turns: Count,
  min_covered_messages: Positive,
  max_summary_tokens: Positive,
  max_compactor_input_tokens: Positive,
  circuit_breaker: v.strictObject({ max_compactions: Positive, min_turns_between: Count }),
  pin: v.strictObject({ project_rules: v.boolean(), task_list: v.boolean(), blockers: v.boolean(), files_touched: v.boolean() }),
  classify: v.strictObject({ user_text: Treatment, assistant_text: Treatment, tool_use: Treatment, tool_result: Treatment, tool_error: Treatment }),
});
export type CompactionSettings = v.InferOutput<typeof CompactionSettings>;

export type CompactionRules = {
  readonly settings: CompactionSettings;
  /** The compactor model's instructions: the bodies of the tiers, appended or replaced tier by tier. */
  readonly instructions: string;
  /** The files that contributed, lowest tier first. */
  readonly sources: readonly string[];
};

export type RuleFile = { readonly file: string; readonly settings: RuleFileSettings; readonly body: string };

export const BUILTIN_RULES_FILE = fileURLToPath(new URL("../../../prompts/compaction/default.md", import.meta.url));

const EXAMPLE = [
  "---",
  "threshold_ratio: 0.7",
  "keep_recent_turns: 6",
  "pin: { files_touched: false }",
  "instructions: append   # or replace",
  "---",
  "Also keep every benchmark number the conversation mentions.",
].join("\n");

function invalid(file: string, why: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `compaction rules ${file} are invalid: ${why}`,
    retryability: "not_retryable",
    user_action: `Fix or remove ${file}: YAML front matter between --- lines, then the instructions in Markdown, e.g.\n\n${EXAMPLE}\n`,
    metadata: { file },
  });
}

/** Where an issue is and what was expected (never the value: a rules file is user text). */
function describe(issue: v.BaseIssue<unknown>): string {
  const where = issue.path?.map((item) => String(item.key)).join(".") || "(top level)";
  return issue.expected === "never" ? `${where}: unknown key` : `${where}: expected ${issue.expected ?? "a valid value"}`;
}

/** Splits `---\n<yaml>\n---\n<body>`; a file without an opening `---` line is all body. */
function split_front_matter(text: string, file: string): { yaml: string; body: string } {
  const normalised = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!/^---[ \t]*\n/.test(normalised)) return { yaml: "", body: normalised };
  const rest = normalised.slice(normalised.indexOf("\n") + 1);
  const close = /^---[ \t]*$/m.exec(rest);
  if (close === null) throw invalid(file, "the front matter opened by --- is never closed by a --- line");
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length).replace(/^\n/, "") };
}

/** One rules file as written; undefined when it does not exist. */
export function read_rule_file(file: string): RuleFile | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw invalid(file, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const { yaml, body } = split_front_matter(text, file);
  const document = YAML.parseDocument(yaml);
  const first_error = document.errors[0];
  if (first_error !== undefined) {
    const [headline = ""] = first_error.message.split("\n");
    throw invalid(file, `the front matter is not valid YAML: ${headline.replace(/:$/, "")}`);
  }
  const value: unknown = document.toJS() ?? {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(file, "the front matter must be a mapping (key: value lines)");
  const parsed = v.safeParse(RuleFileSettings, value);
  if (!parsed.success) throw invalid(file, parsed.issues.map(describe).join("; "));
  return { file, settings: parsed.output, body: body.trim() };
}

type Plain = { [key: string]: unknown };

function is_plain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Key by key, recursively: a higher tier overrides only the keys it names. */
function deep_merge(base: Plain, over: Plain): Plain {
  const merged: Plain = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    merged[key] = is_plain(value) && is_plain(merged[key]) ? deep_merge(merged[key] as Plain, value) : value;
  }
  return merged;
}

/**
 * The three tiers merged, lowest first: settings key by key (the higher tier wins each key it sets), and
 * instructions appended tier by tier unless a tier says `instructions: replace`. An empty body changes nothing.
 */
function merge_rule_files(files: readonly RuleFile[]): CompactionRules {
  let settings: Plain = {};
  let instructions = "";
  for (const { settings: tier, body } of files) {
    const { instructions: mode = "append", version: _version, ...rest } = tier;
    settings = deep_merge(settings, rest);
    if (body === "") continue;
    instructions = mode === "replace" || instructions === "" ? body : `${instructions}\n\n${body}`;
  }
  const resolved = v.safeParse(CompactionSettings, settings);
  if (!resolved.success) {
    const file = files[0]?.file ?? BUILTIN_RULES_FILE;
    throw invalid(file, `the built-in tier must set every key: ${resolved.issues.map(describe).join("; ")}`);
  }
  return { settings: resolved.output, instructions, sources: files.map((tier) => tier.file) };
}

/** The compaction rules in force for a project: built-in, then `<air home>/compaction-rules.md`, then the project's. */
export function load_compaction_rules(layout: ProjectLayout, home: string): CompactionRules {
  const builtin = read_rule_file(BUILTIN_RULES_FILE);
  if (builtin === undefined) {
    throw air_failure({
      kind: "system_error",
      message: `the built-in compaction rules ${BUILTIN_RULES_FILE} are missing`,
      retryability: "not_retryable",
      user_action: "Reinstall air: its prompts/ folder is incomplete.",
    });
  }
  const tiers = [builtin, read_rule_file(path.join(home, "compaction-rules.md")), read_rule_file(layout.shared_compaction_rules)];
  return merge_rule_files(tiers.filter((tier): tier is RuleFile => tier !== undefined));
}
