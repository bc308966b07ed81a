import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PromptLayer } from "../contracts/prompt-layer.js";
import { air_failure } from "../contracts/errors.js";
import type { TaskSpec } from "../contracts/task.js";
import type { AgentType } from "../contracts/worker-result.js";
import { classify_path, type PathCategory } from "../permissions/paths.js";
import { default_redactor } from "../permissions/secret-redactor.js";
import { project_layout } from "../project/layout.js";
import { make_layer, task_spec_layer } from "./layers.js";

/**
 * `prompts/` at the package root: two levels above this file both in src/context/ (tests through tsx) and
 * in dist/context/ (an installed package ships dist/ and prompts/ side by side).
 */
export const PROMPTS_DIR = fileURLToPath(new URL("../../prompts/", import.meta.url));

/** Whose role prompt: a worker's agent type, or a runtime role's (the Main Agent, the Architecture Designer; seeds 000 §10.2). */
export type PromptRole = AgentType | "main" | "architect";

/** The project files of L3 at the root, after `.air/shared/rules/*.md`. */
const ROOT_RULE_FILES = ["AGENTS.md", "CLAUDE.md"] as const;

/** Longest rule file put in the prompt; a longer one is cut and says so. */
const RULE_FILE_MAX_CHARS = 100_000;

/** Where a rule file may really live: project content, never air's local state, git internals or outside. */
const RULE_CATEGORIES: ReadonlySet<PathCategory> = new Set(["project_source", "project_air_shared", "project_build_output"]);

/**
 * PromptLayerLoader (seeds 000 §10.2): the layers that come from files — L0 runtime invariant and L1 role
 * prompts shipped in `prompts/`, L3 project rules — and L5 from the TaskSpec. Shipped prompts are read
 * once per loader.
 */
export class PromptLayerLoader {
  readonly #dir: string;
  readonly #shipped = new Map<string, string>();

  constructor(options: { prompts_dir?: string } = {}) {
    this.#dir = options.prompts_dir ?? PROMPTS_DIR;
  }

  load_runtime_invariant(): PromptLayer {
    return make_layer("runtime_invariant", "runtime-invariant", this.#read_shipped("runtime-invariant.md"));
  }

  load_role(role: PromptRole): PromptLayer {
    return make_layer("role", `role/${role}`, this.#read_shipped(path.join("roles", `${role}.md`)));
  }

  /**
   * L3: `.air/shared/rules/*.md` by name, then `AGENTS.md` and `CLAUDE.md` at the root, each labelled with
   * its path. A file that resolves outside the project's content (a symlink to `~/.ssh/…`, into `.git` or
   * `.air/local`) is not read, and its layer says so; a second name of a file already read points to it.
   */
  load_project_rules(project_root: string): PromptLayer[] {
    const layout = project_layout(project_root);
    const names = list_markdown(layout.rules).map((name) => path.posix.join(".air/shared/rules", name));
    const layers: PromptLayer[] = [];
    const seen = new Map<string, string>();
    for (const relative of [...names, ...ROOT_RULE_FILES]) {
      const text = this.#rule_text(project_root, relative, seen);
      if (text !== undefined)
        layers.push(make_layer("project_rules", relative.replace(/^\.air\/shared\//, ""), `# Project rules: ${relative}\n\n${text}`, relative));
    }
    return layers;
  }

  /** L5: the task's title, description, acceptance criteria, scope and verification commands. */
  load_task_context(spec: TaskSpec, project_root: string): PromptLayer[] {
    return [task_spec_layer(spec, project_root)];
  }

  #rule_text(project_root: string, relative: string, seen: Map<string, string>): string | undefined {
    const where = classify_path(relative, project_root);
    if (!where.exists) return undefined;
    if (!where.inside_project || !RULE_CATEGORIES.has(where.category)) return `(not read: ${relative} resolves to ${where.category.replaceAll("_", " ")})`;
    const same = seen.get(where.real);
    if (same !== undefined) return `(the same file as ${same})`;
    let text: string;
    try {
      if (!fs.statSync(where.real).isFile()) return undefined;
      text = fs.readFileSync(where.real, "utf8").trimEnd();
    } catch (error) {
      return `(not read: ${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
    seen.set(where.real, relative);
    if (text.trim() === "") return undefined;
    const clipped = text.length <= RULE_FILE_MAX_CHARS ? text : `${text.slice(0, RULE_FILE_MAX_CHARS)}\n… [cut: the file has ${text.length} characters]`;
    return default_redactor().redact(clipped);
  }

  #read_shipped(relative: string): string {
    let text = this.#shipped.get(relative);
    if (text === undefined) {
      const file = path.join(this.#dir, relative);
      try {
        text = fs.readFileSync(file, "utf8").trimEnd();
      } catch (error) {
        throw air_failure(
          {
            kind: "system_error",
            message: `the prompt resource ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
            retryability: "not_retryable",
            user_action: "The installation of air is incomplete (its prompts/ folder is missing a file): reinstall it.",
            metadata: { file },
          },
          error,
        );
      }
      this.#shipped.set(relative, text);
    }
    return text;
  }
}

function list_markdown(folder: string): string[] {
  try {
    return fs
      .readdirSync(folder)
      .filter((name) => name.endsWith(".md"))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
