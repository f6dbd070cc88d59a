import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { hostName, isAllowedHost, refuseForeignHosts } from "./hosts";

describe("hostName", () => {
  it("takes the name of a Host header without its port, lower case, IPv6 without brackets", () => {
    expect(hostName("LocalHost:3000")).toBe("localhost");
    expect(hostName("127.0.0.1")).toBe("127.0.0.1");
    expect(hostName("[::1]:3000")).toBe("::1");
    expect(hostName("lab.example.org.:443")).toBe("lab.example.org");
    expect(hostName("")).toBeUndefined();
    expect(hostName(undefined)).toBeUndefined();
  });
});

describe("isAllowedHost", () => {
  it("serves loopback and the configured names only", () => {
    for (const h of ["localhost:3000", "127.0.0.1:3100", "[::1]:3000", "localhost"]) expect(isAllowedHost(h, []), h).toBe(true);
    expect(isAllowedHost("rebind.attacker.test:3000", [])).toBe(false);
    expect(isAllowedHost("localhost.attacker.test", [])).toBe(false);
    expect(isAllowedHost("127.0.0.1.nip.io:3000", [])).toBe(false);
    expect(isAllowedHost(undefined, [])).toBe(false);
    expect(isAllowedHost("lab.example.org:3000", ["lab.example.org"])).toBe(true);
  });
});

const servers: Server[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r)))));

async function get(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, path: "/api/v1/runs", headers: { host } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("refuseForeignHosts", () => {
  it("answers a foreign Host (DNS rebinding) with a JSON 403 before the app sees it", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.host ?? "");
      res.end("app");
    });
    refuseForeignHosts(server, ["lab.example.org"]);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;

    const foreign = await get(port, "rebind.attacker.test:3000");
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ error: "forbidden_host", message: expect.stringContaining("rebind.attacker.test") });
    expect(await get(port, `localhost:${port}`)).toEqual({ status: 200, body: "app" });
    expect(await get(port, "lab.example.org")).toEqual({ status: 200, body: "app" });
    expect(seen).toEqual([`localhost:${port}`, "lab.example.org"]);
  });
});
