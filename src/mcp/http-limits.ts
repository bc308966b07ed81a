/** How long a remote server may take to answer a request's headers before the request fails. */
const HEADERS_TIMEOUT_MS = 30_000;

function too_large(max_bytes: number): Error {
  return new Error(`the server's response is larger than ${max_bytes} bytes`);
}

/** A body that errors once more than `max_bytes` have passed: a remote server cannot fill air's memory. */
function limited_body(body: ReadableStream<Uint8Array>, max_bytes: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
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
    const controller = new AbortController();
    const outer = init?.signal;
    const forward = () => controller.abort(outer?.reason);
    if (outer?.aborted === true) forward();
    else outer?.addEventListener("abort", forward, { once: true });
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${headers_timeout_ms} ms`)), headers_timeout_ms);
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > max_bytes) {
      await response.body?.cancel();
      throw too_large(max_bytes);
    }
    if (response.body === null) return response;
    return new Response(limited_body(response.body, max_bytes), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
