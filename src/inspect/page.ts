import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** The Stately Inspector UI (closed source, served by stately.ai): the page embeds it in an iframe. */
const INSPECTOR_URL = "https://stately.ai/inspect";

/**
 * Requests must name the relay by its loopback address: another site the browser has open cannot reach it
 * through DNS rebinding (a wrong Host) or read the stream with a cross-site WebSocket (a foreign Origin).
 * Non-browser clients send no Origin.
 */
export function is_local_request(request: IncomingMessage, port: number): boolean {
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowed.includes(request.headers.host ?? "")) return false;
  const origin = request.headers.origin;
  return origin === undefined || allowed.some((host) => origin === `http://${host}`);
}

/**
 * The bridge page, the protocol of `@statelyai/inspect/server`'s page: it reads the relay's WebSocket and
 * posts each message into the Inspector's frame, buffering until the frame says `@statelyai.connected`.
 * Unlike that page it answers only its own frame, posts only to the origin that frame announced, reloads
 * for the full picture when the relay comes back after a drop, and its CSP lets it reach nothing but the
 * relay and the Inspector frame.
 */
function bridge_html(nonce: string): string {
  return `<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>air — live statecharts</title>
  <style nonce="${nonce}">
    * { margin: 0; padding: 0; }
    html, body { height: 100%; }
    iframe { width: 100%; height: 100%; border: none; }
    #status { position: fixed; bottom: 0; left: 0; padding: 4px 8px; font: 12px sans-serif; background: #fffbe6; }
    #status:empty { display: none; }
  </style>
</head>
<body>
  <iframe id="inspector" src="${INSPECTOR_URL}" referrerpolicy="no-referrer"></iframe>
  <div id="status"></div>
  <script nonce="${nonce}">
    const iframe = document.getElementById('inspector');
    const status = document.getElementById('status');
    const buffer = [];
    let inspector_origin = null;

    window.addEventListener('message', (e) => {
      if (e.source !== iframe.contentWindow || !e.data || e.data.type !== '@statelyai.connected') return;
      inspector_origin = e.origin;
      for (const event of buffer.splice(0)) iframe.contentWindow.postMessage(event, inspector_origin);
    });

    function deliver(event) {
      if (inspector_origin === null) buffer.push(event);
      else iframe.contentWindow.postMessage(event, inspector_origin);
    }

    function wait_for_relay() {
      setTimeout(() => {
        const probe = new WebSocket('ws://' + location.host);
        probe.onopen = () => location.reload();
        probe.onerror = () => wait_for_relay();
      }, 2000);
    }

    const ws = new WebSocket('ws://' + location.host);
    ws.onmessage = (e) => deliver(JSON.parse(e.data));
    ws.onclose = () => {
      status.textContent = 'air is no longer sending: this is the last state it sent.';
      wait_for_relay();
    };
  </script>
</body>
</html>`;
}

/** Serves the bridge page at `/` (GET only, local requests only). */
export function serve_page(request: IncomingMessage, response: ServerResponse, port: number): void {
  if (!is_local_request(request, port)) {
    response.writeHead(403, { "content-type": "text/plain" }).end("forbidden: open the page at http://127.0.0.1:" + port + "/\n");
    return;
  }
  if (request.method !== "GET" || (request.url ?? "/") !== "/") {
    response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    return;
  }
  const nonce = randomBytes(16).toString("base64");
  response.writeHead(200, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "content-security-policy": [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "frame-src https://stately.ai https://*.stately.ai",
      `connect-src ws://127.0.0.1:${port} ws://localhost:${port}`,
      "base-uri 'none'",
      "form-action 'none'",
    ].join("; "),
  });
  response.end(bridge_html(nonce));
}
