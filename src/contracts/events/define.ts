import type * as v from "valibot";

export type PayloadSchema = v.GenericSchema<unknown, unknown>;

/**
 * How the bus folds bursts of an ephemeral event: `latest` keeps the newest payload per key
 * (heartbeats, progress); `append` concatenates a text field per key (stream deltas), so nothing is lost.
 */
export type Coalescing = { readonly mode: "latest"; readonly key: string } | { readonly mode: "append"; readonly key: string; readonly text: string };

type Common<P extends PayloadSchema> = {
  readonly version: number;
  readonly payload: P;
  readonly summary: string;
};

export type DurableDefinition<P extends PayloadSchema = PayloadSchema> = Common<P> & {
  readonly persistence: "durable";
};

export type EphemeralDefinition<P extends PayloadSchema = PayloadSchema> = Common<P> & {
  readonly persistence: "ephemeral";
  readonly coalescing?: Coalescing;
};

export type EventDefinition<P extends PayloadSchema = PayloadSchema> = DurableDefinition<P> | EphemeralDefinition<P>;

export function durable<P extends PayloadSchema>(payload: P, summary: string, version = 1): DurableDefinition<P> {
  return { persistence: "durable", version, payload, summary };
}

export function ephemeral<P extends PayloadSchema>(payload: P, summary: string, coalescing?: Coalescing, version = 1): EphemeralDefinition<P> {
  return coalescing === undefined
    ? { persistence: "ephemeral", version, payload, summary }
    : { persistence: "ephemeral", version, payload, summary, coalescing };
}
