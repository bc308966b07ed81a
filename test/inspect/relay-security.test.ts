import http from "node:http";
import net from "node:net";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { LiveSystem } from "../../src/inspect/live-system.js";
import { start_relay, type Relay } from "../../src/inspect/relay.js";
import { InspectorClient } from "./helpers.js";

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const handle of open.splice(0)) handle.close();
});

async function relay(): Promise<Relay> {
  const started = await start_relay(new LiveSystem(), { port: 0 });
  open.push(started);
  return started;
}

type Response = { status: number; headers: http.IncomingHttpHeaders; body: string };

function get(port: number, options: { path?: string; host?: string; method?: string } = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port, path: options.path ?? "/", method: options.method ?? "GET", headers: { host: options.host ?? `127.0.0.1:${port}` } },
      (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on("error", reject).end();
  });
}

describe("the --inspect relay against other sites and other machines", () => {
  it("refuses a WebSocket opened by another site's page (cross-site WebSocket hijacking)", async () => {
    const { url, port } = await relay();
    await expect(InspectorClient.connect(url, { origin: "https://evil.example" })).rejects.toThrow(/HTTP 403/);
    await expect(InspectorClient.connect(url, { origin: `http://127.0.0.1.evil.example:${port}` })).rejects.toThrow(/HTTP 403/);
  });

  it("refuses requests that name another host (DNS rebinding), for the page and the WebSocket", async () => {
    const { url, port } = await relay();
    expect((await get(port, { host: `evil.example:${port}` })).status).toBe(403);
    expect((await get(port, { host: "127.0.0.1" })).status).toBe(403);
    await expect(InspectorClient.connect(url, { host: `evil.example:${port}` })).rejects.toThrow(/HTTP 403/);
  });

  it("accepts the page's own origin, by address and by name", async () => {
    const { url, port } = await relay();
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const client = await InspectorClient.connect(url, { origin });
      open.push(client);
    }
    expect((await get(port, { host: `localhost:${port}` })).status).toBe(200);
  });

  it("listens on the loopback address only", async () => {
    const { url, port } = await relay();
    expect(url).toBe(`http://127.0.0.1:${port}/`);
    const outward = Object.values(os.networkInterfaces())
      .flat()
      .filter((address) => address !== undefined && !address.internal);
    for (const address of outward) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: address!.address, port, family: address!.family === "IPv6" ? 6 : 4 });
        socket.once("connect", () => {
          socket.destroy();
          resolve(false);
        });
        socket.once("error", () => resolve(true));
      });
      expect(refused, address!.address).toBe(true);
    }
  });

  it("serves only the bridge page, which reaches nothing but the relay and the Stately Inspector frame", async () => {
    const { port } = await relay();
    const page = await get(port);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<iframe id="inspector" src="https://stately.ai/inspect" referrerpolicy="no-referrer">');
    expect(page.body).toContain("new WebSocket('ws://' + location.host)");
    const external = [...page.body.matchAll(/\b(?:https?|wss?):\/\/[^\s"'<>)]+/g)].map((match) => match[0]);
    expect(external).toEqual(["https://stately.ai/inspect"]);
    const policy = String(page.headers["content-security-policy"]);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-src https://stately.ai https://*.stately.ai");
    expect(policy).toContain(`connect-src ws://127.0.0.1:${port} ws://localhost:${port}`);
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect((await get(port, { path: "/other" })).status).toBe(404);
    expect((await get(port, { method: "POST" })).status).toBe(404);
  });
});
