import http from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { air_failure } from "../contracts/errors.js";
import type { LiveSystem } from "./live-system.js";
import { is_local_request, serve_page } from "./page.js";

/** A client this far behind is dropped; when it reconnects the replay gives it the whole system again. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export type RelayOptions = {
  /** 0 (the default) takes any free port. */
  readonly port?: number;
  readonly max_buffered_bytes?: number;
};

export type Relay = {
  /** The bridge page to open in a browser; its WebSocket is the same address. */
  readonly url: string;
  readonly port: number;
  /** Connected clients. */
  readonly clients: number;
  /** Drops every client and stops listening, at once: nothing waits for a client. */
  close(): void;
};

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      reject(
        air_failure({
          kind: "env_error",
          message: `the statechart relay cannot listen on 127.0.0.1:${port} (${error.code ?? error.message})`,
          retryability: "retryable_after_change",
          user_action: "Choose another port with --inspect=PORT, or --inspect=0 for any free port.",
        }),
      );
    };
    server.once("error", failed);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The relay of `air run --inspect`: on 127.0.0.1 only, it serves the bridge page and a WebSocket that
 * first replays the live system (every running actor's definition and latest snapshot) and then streams
 * every inspection message. It never keeps air alive: the server and every socket are unref'd, a client
 * that falls behind is dropped instead of buffered without bound, and clients cannot send anything in.
 */
export async function start_relay(system: LiveSystem, options: RelayOptions = {}): Promise<Relay> {
  const max_buffered = options.max_buffered_bytes ?? MAX_BUFFERED_BYTES;
  const clients = new Set<WebSocket>();
  let port = options.port ?? 0;
  const server = http.createServer((request, response) => serve_page(request, response, port));
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 });

  server.on("connection", (socket) => socket.unref());
  server.on("upgrade", (request, socket, head) => {
    if (!is_local_request(request, port)) {
      socket.end("HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => {
      client.on("error", () => client.terminate());
      client.on("close", () => clients.delete(client));
      // The replay and the switch to live messages happen in one turn, so no message falls between them.
      for (const event of system.replay()) client.send(JSON.stringify(event));
      clients.add(client);
    });
  });

  const detach = system.attach({
    listening: () => clients.size > 0,
    write(line) {
      for (const client of clients) {
        if (client.readyState !== WebSocket.OPEN) continue;
        if (client.bufferedAmount > max_buffered) {
          clients.delete(client);
          client.terminate();
        } else {
          client.send(line);
        }
      }
    },
  });

  try {
    port = await listen(server, port);
  } catch (error) {
    detach();
    throw error;
  }
  server.unref();
  server.on("error", () => undefined);

  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    get clients() {
      return clients.size;
    },
    close() {
      detach();
      for (const client of clients) client.terminate();
      clients.clear();
      sockets.close();
      server.close();
      server.closeAllConnections();
    },
  };
}
