import { air_failure, type AirFailure } from "../contracts/errors.js";
import type { ContentBlock, ModelCapabilities, ModelRequest } from "../contracts/provider.js";
import { builtin_capabilities, KNOWN_MODELS } from "./capability-defaults.js";
import type { CapabilityOverride, ModelEntry, ProviderId } from "./models-file.js";

/** One file's `models:` section, with the file's path for messages. */
export type CapabilityFile = {
  readonly file: string;
  readonly models: Readonly<Record<string, CapabilityOverride | ModelEntry>> | undefined;
};

/** A model as the matrix sees it: what it can do, and where each correction came from. */
export type ResolvedModel = {
  readonly provider_id: ProviderId;
  readonly model_id: string;
  readonly capabilities: ModelCapabilities;
  /** Whether a built-in family matched; otherwise the defaults for unknown models apply. */
  readonly known: boolean;
  /** `built-in` or `default for unknown models`, then each models.yaml that corrected it. */
  readonly sources: readonly string[];
  /** Anthropic extended thinking, from the user's models.yaml only. */
  readonly thinking_budget_tokens: number | undefined;
};

export type CapabilityMatrix = {
  readonly home_file: string;
  readonly project_file: string | undefined;
  resolve(provider_id: ProviderId, model_id: string): ResolvedModel;
  /** Model ids the user's models.yaml lists under `provider_id`. */
  configured_models(provider_id: ProviderId): string[];
};

function defined<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

function corrected(base: ModelCapabilities, override: CapabilityOverride): ModelCapabilities {
  const { supports, ...rest } = override;
  return { ...base, ...defined(rest), supports: { ...base.supports, ...defined(supports) } };
}

/**
 * Built-in defaults, then `~/.air/models.yaml`, then the project's `.air/shared/models.yaml` (seeds 003 §14):
 * the project knows its own local model best, the user knows their machine better than air's defaults.
 */
export function capability_matrix(home: CapabilityFile, project?: CapabilityFile): CapabilityMatrix {
  return {
    home_file: home.file,
    project_file: project?.file,
    resolve(provider_id, model_id) {
      const builtin = builtin_capabilities(provider_id, model_id);
      let capabilities = builtin.capabilities;
      const sources = [builtin.known ? "built-in" : "default for unknown models"];
      for (const layer of [home, project]) {
        const override = layer?.models?.[model_id];
        if (layer === undefined || override === undefined) continue;
        capabilities = corrected(capabilities, override);
        sources.push(layer.file);
      }
      const entry = home.models?.[model_id] as ModelEntry | undefined;
      return { provider_id, model_id, capabilities, known: builtin.known, sources, thinking_budget_tokens: entry?.thinking_budget_tokens };
    },
    configured_models(provider_id) {
      return Object.entries(home.models ?? {})
        .filter(([, entry]) => (entry as ModelEntry).provider === provider_id)
        .map(([model_id]) => model_id);
    },
  };
}

// Anthropic bills an image at (width × height) / 750 tokens and scales larger ones down to about this.
const IMAGE_TOKENS = 1_600;
const CHARS_PER_TOKEN = 4;

function is_image(block: ContentBlock): boolean {
  return block.type === "image";
}

/** The blocks of a message, with the blocks inside tool results: a tool can return an image. */
function* blocks_of(content: string | readonly ContentBlock[]): Generator<ContentBlock> {
  if (typeof content === "string") return;
  for (const block of content) {
    yield block;
    if (block.type === "tool_result" && Array.isArray(block.content)) yield* blocks_of(block.content as ContentBlock[]);
  }
}

export function request_has_images(request: ModelRequest): boolean {
  return request.messages.some((message) => [...blocks_of(message.content)].some(is_image));
}

/**
 * A cheap, deliberately rough size of a request in tokens (four characters a token; images at their
 * billed size, not their base64 length). It only has to catch a request that clearly cannot fit.
 */
export function estimate_request_tokens(request: ModelRequest): number {
  let chars = JSON.stringify(request.system ?? "").length + JSON.stringify(request.tools ?? []).length;
  let images = 0;
  for (const message of request.messages) {
    if (typeof message.content === "string") {
      chars += message.content.length;
      continue;
    }
    for (const block of message.content) {
      if (is_image(block)) images += 1;
      else if (block.type === "tool_result" && Array.isArray(block.content)) {
        const inner = block.content as ContentBlock[];
        images += inner.filter(is_image).length;
        chars += JSON.stringify(inner.filter((item) => !is_image(item))).length;
      } else chars += JSON.stringify(block).length;
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

type Need = {
  readonly capability: "tools" | "vision" | "context_window";
  readonly why: string;
  readonly fits: (capabilities: ModelCapabilities) => boolean;
  readonly correction: string;
};

function needs_of(request: ModelRequest, model: ResolvedModel): Need[] {
  const needs: Need[] = [];
  const tools = request.tools?.length ?? 0;
  if (tools > 0 && !model.capabilities.supports.tools) {
    needs.push({
      capability: "tools",
      why: `it does not call tools and the request offers ${tools}`,
      fits: (c) => c.supports.tools,
      correction: "supports: { tools: true }",
    });
  }
  if (request_has_images(request) && !model.capabilities.supports.vision) {
    needs.push({
      capability: "vision",
      why: "it does not read images and the request contains one",
      fits: (c) => c.supports.vision,
      correction: "supports: { vision: true }",
    });
  }
  const estimate = estimate_request_tokens(request);
  if (estimate > model.capabilities.context_window) {
    needs.push({
      capability: "context_window",
      why: `the request is about ${estimate} tokens and its context window is ${model.capabilities.context_window}`,
      fits: (c) => c.context_window >= estimate,
      correction: `context_window: ${estimate * 2}`,
    });
  }
  return needs;
}

/**
 * The `model_capability_error` for a request the model cannot take — refused before any network call —
 * or undefined when it can. The action names a model of the same provider that would do and the
 * models.yaml correction for when the matrix is wrong about this one.
 */
export function capability_failure(request: ModelRequest, model: ResolvedModel, matrix: CapabilityMatrix): AirFailure | undefined {
  const [need] = needs_of(request, model);
  if (need === undefined) return undefined;
  const others = KNOWN_MODELS[model.provider_id].filter(
    (candidate) => candidate !== model.model_id && need.fits(matrix.resolve(model.provider_id, candidate).capabilities),
  );
  const switch_to =
    others.length > 0
      ? `Start a new session with a model that can, e.g. ${others.slice(0, 2).join(" or ")} (AIR_MODEL, or default_model in ${matrix.home_file}); or, if`
      : `Start a new session with a model that can (AIR_MODEL, or default_model in ${matrix.home_file}); or, if`;
  return air_failure({
    kind: "model_capability_error",
    message: `model ${model.model_id} (${model.provider_id}) cannot take this request: ${need.why}`,
    retryability: "retryable_after_change",
    user_action: `${switch_to} ${model.model_id} can, correct its entry in ${matrix.home_file}: models: { ${JSON.stringify(model.model_id)}: { ${need.correction} } }.`,
    metadata: { provider_id: model.provider_id, model_id: model.model_id, capability: need.capability, capability_sources: [...model.sources] },
  });
}
