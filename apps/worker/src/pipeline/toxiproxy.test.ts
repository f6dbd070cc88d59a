import { createServer, IncomingMessage, Server } from "node:http";
import { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyNetworkFault, clearNetworkFaults } from "./toxiproxy";

/*
 * The client's requests and error messages against a stand-in of toxiproxy's API on 127.0.0.1
 * (toxiproxy itself is exercised in fault-proxy.integration.test.ts).
 */
type Call = { method: string; url: string; body: unknown };
const calls: Call[] = [];
const toxics: Record<string, { name: string }[]> = { "app-0-8080": [{ name: "delay" }], "app-0-9090": [{ name: "delay" }] };
let server: Server;
let base: string;

const read = async (req: IncomingMessage) => {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text ? JSON.parse(text) : undefined;
};

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await read(req);
    calls.push({ method: req.method!, url: req.url!, body });
    const [, , proxy, , toxic] = req.url!.split("/");
    if (proxy === "missing") return res.writeHead(404).end(JSON.stringify({ error: "proxy not found", status: 404 }));
    if (req.method === "POST" && (body as { name: string }).name === "delay" && proxy === "app-0-9090")
      return res.writeHead(409).end(JSON.stringify({ error: "toxic already exists", status: 409 }));
    if (req.method === "GET") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(toxics[proxy!] ?? []));
    if (req.method === "DELETE") return res.writeHead(toxic === "gone" ? 404 : 204).end();
    res.writeHead(200).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the toxiproxy client", () => {
  it("adds each toxic of the fault to each proxy of the target", async () => {
    calls.length = 0;
    await applyNetworkFault(base, ["app-0-8080"], { action: "bandwidth", kbps: 800 });
    expect(calls).toEqual([
      {
        method: "POST",
        url: "/proxies/app-0-8080/toxics",
        body: { name: "bandwidth-in", type: "bandwidth", stream: "upstream", toxicity: 1, attributes: { rate: 100 } },
      },
      {
        method: "POST",
        url: "/proxies/app-0-8080/toxics",
        body: { name: "bandwidth-out", type: "bandwidth", stream: "downstream", toxicity: 1, attributes: { rate: 100 } },
      },
    ]);
  });

  it("names the proxy and toxiproxy's answer when it refuses", async () => {
    await expect(applyNetworkFault(base, ["app-0-8080", "app-0-9090"], { action: "delay", ms: 5 })).rejects.toThrow(
      "adding the delay toxic to proxy app-0-9090: toxiproxy answered HTTP 409 toxic already exists",
    );
    await expect(clearNetworkFaults(base, ["missing"])).rejects.toThrow(
      "listing the toxics of proxy missing: toxiproxy answered HTTP 404 proxy not found",
    );
  });

  it("clear lists and deletes every toxic of each proxy; one already gone is fine; `clear` as a fault does the same", async () => {
    calls.length = 0;
    toxics["app-0-8080"] = [{ name: "delay" }, { name: "gone" }];
    await applyNetworkFault(base, ["app-0-8080", "app-0-9090"], { action: "clear" });
    expect(calls.map((c) => `${c.method} ${c.url}`).sort()).toEqual([
      "DELETE /proxies/app-0-8080/toxics/delay",
      "DELETE /proxies/app-0-8080/toxics/gone",
      "DELETE /proxies/app-0-9090/toxics/delay",
      "GET /proxies/app-0-8080/toxics",
      "GET /proxies/app-0-9090/toxics",
    ]);
  });

  it("says when toxiproxy cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(clearNetworkFaults(`http://127.0.0.1:${port}`, ["app-0-8080"])).rejects.toThrow(
      `listing the toxics of proxy app-0-8080: toxiproxy at http://127.0.0.1:${port} could not be reached: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it("gives up when the run is stopped", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    await expect(applyNetworkFault(base, ["app-0-8080"], { action: "reset" }, controller.signal)).rejects.toThrow("cancelled");
  });
});
