import fs from "node:fs";
import * as v from "valibot";
import YAML from "yaml";
import { air_failure, type AirFailure } from "../contracts/errors.js";

/** A user-edited YAML file: its schema and an example to show when it is broken. */
export type YamlFileSpec<S extends v.GenericSchema> = { readonly schema: S; readonly example: string };

function invalid(file: string, why: string, example: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `${file} is invalid: ${why}`,
    retryability: "not_retryable",
    user_action: `Fix or remove ${file}. It should look like:\n\n${example}\n`,
    metadata: { file },
  });
}

/**
 * Where an issue is and what was expected — never the value received: it could be a key.
 * (YAML errors likewise keep their first line only; the rest quotes the source.)
 */
function describe(issue: v.BaseIssue<unknown>): string {
  const where = issue.path?.map((item) => String(item.key)).join(".") || "(top level)";
  if (issue.expected === "never") return `${where}: unknown key`;
  // A rule the schema worded itself says best what it wants; valibot's own wording ("Invalid …") quotes the value.
  if (issue.kind === "validation" && !issue.message.startsWith("Invalid ")) return `${where}: expected ${issue.message}`;
  return `${where}: expected ${issue.expected ?? "a valid value"}`;
}

/**
 * The parsed file, or undefined when there is none. A file that is there but broken is an AirError, never a
 * silent default: a typo in a permissions file must not quietly loosen or tighten anything.
 */
export function read_yaml_file<S extends v.GenericSchema>(file: string, spec: YamlFileSpec<S>): v.InferOutput<S> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw air_failure(
      {
        kind: "user_error",
        message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        retryability: "not_retryable",
        user_action: `Make ${file} a readable file, or remove it.`,
        metadata: { file },
      },
      error,
    );
  }
  // parseDocument rather than parse: errors are collected instead of thrown, warnings are not printed.
  const document = YAML.parseDocument(text);
  const first_error = document.errors[0];
  if (first_error !== undefined) {
    // biome-ignore lint/style/noNonNullAssertion: split always returns at least one part
    throw invalid(file, `it is not valid YAML: ${first_error.message.split("\n")[0]!.replace(/:$/, "")}`, spec.example);
  }
  const value: unknown = document.toJS() ?? {};
  // valibot's object schemas take an array for an object with keys "0", "1", …; say what is wrong instead.
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(file, "it must be a mapping (key: value lines) at the top level", spec.example);
  const parsed = v.safeParse(spec.schema, value);
  if (!parsed.success) throw invalid(file, parsed.issues.map(describe).join("; "), spec.example);
  return parsed.output;
}
