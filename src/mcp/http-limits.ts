/** How long a remote server may take to answer a request's headers before the request fails. */
const HEADERS_TIMEOUT_MS = 30_000;

function too_large(max_bytes: number): Error {
  return new Error(`the server's response is larger than ${max_bytes} bytes`);
}

/** Where the last event of an event stream ends in `chunk` (after its blank line), or -1. */
function last_event_end(chunk: Uint8Array): number {
  for (let index = chunk.byteLength - 1; index > 0; index -= 1) {
    if (chunk[index] === 0x0a && (chunk[index - 1] === 0x0a || (chunk[index - 1] === 0x0d && chunk[index - 2] === 0x0a))) return index + 1;
  }
  return -1;
}

/**
 * A body that errors once more than `max_bytes` have passed, so a remote server cannot fill air's memory. An event
 * stream stays open for the whole session with every answer on it: there the limit is per event, counted afresh
 * after each blank line.
 */
function limited_body(body: ReadableStream<Uint8Array>, max_bytes: number, per_event: boolean): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const end = per_event ? last_event_end(chunk) : -1;
        seen = end < 0 ? seen + chunk.byteLength : chunk.byteLength - end;
        if (seen > max_bytes) controller.error(too_large(max_bytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * The fetch a remote MCP transport uses: headers must arrive within a time limit (a streamed body may then take
 * as long as the call's own timeout allows), and no response body may exceed `max_bytes`.
 */
export function limited_fetch(max_bytes: number, headers_timeout_ms = HEADERS_TIMEOUT_MS): typeof fetch {
  return async (input, init) => {
    const headers = new AbortController();
    // `any` lets go of the transport's long-lived signal with the request, where a listener on it would pile up.
    const signal = init?.signal == null ? headers.signal : AbortSignal.any([init.signal, headers.signal]);
    const timer = setTimeout(() => headers.abort(new Error(`no answer within ${headers_timeout_ms} ms`)), headers_timeout_ms);
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal });
    } finally {
      clearTimeout(timer);
    }
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > max_bytes) {
      await response.body?.cancel();
      throw too_large(max_bytes);
    }
    if (response.body === null) return response;
    const per_event = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
    return new Response(limited_body(response.body, max_bytes, per_event), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
