import { Agent, createServer, Server } from "node:http";
import { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { getText } from "./figures";

let server: Server | undefined;
afterEach(() => server?.close());

function serve(status: number, body: string): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  });
  server.on("connection", () => connections++);
  return new Promise((resolve) =>
    server!.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/stats`, connections: () => connections }),
    ),
  );
}

describe("getText", () => {
  it("reads the answer, reusing one kept-alive connection", async () => {
    const { url, connections } = await serve(200, JSON.stringify({ pool: { busy: 3 } }));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 3; i++) expect(JSON.parse(await getText(url, agent, AbortSignal.timeout(1000)))).toEqual({ pool: { busy: 3 } });
    expect(connections()).toBe(1);
    agent.destroy();
  });

  it("fails on a status other than 200 and on abort", async () => {
    const agent = new Agent({ keepAlive: true });
    const bad = await serve(503, "{}");
    await expect(getText(bad.url, agent, AbortSignal.timeout(1000))).rejects.toThrow("HTTP 503");
    server!.close();
    const good = await serve(200, "# pxname,svname");
    await expect(getText(good.url, agent, AbortSignal.timeout(1000))).resolves.toBe("# pxname,svname");
    await expect(getText(good.url, agent, AbortSignal.abort())).rejects.toThrow(/abort/i);
    agent.destroy();
  });
});
