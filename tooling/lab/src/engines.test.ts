import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { engineFromArgs, type EngineAddArgs } from "./engines";

const args = (a: Partial<EngineAddArgs>): EngineAddArgs => ({
  name: "swarm-local",
  manager: "tcp://172.18.0.2:2375",
  node: ["node1=tcp://172.18.0.2:2375", "node2=tcp://172.18.0.3:2375"],
  "tls-dir": undefined,
  "registry-push": "127.0.0.1:5000",
  "registry-pull": "registry:5000",
  ...a,
});
const errors = (a: Partial<EngineAddArgs>) => {
  const r = engineFromArgs(args(a));
  return r.ok ? [] : r.errors;
};

describe("lab engine add's arguments", () => {
  it("become an engine's config", () => {
    expect(engineFromArgs(args({}))).toEqual({
      ok: true,
      config: {
        name: "swarm-local",
        kind: "swarm",
        manager: "tcp://172.18.0.2:2375",
        nodes: [
          { name: "node1", endpoint: "tcp://172.18.0.2:2375" },
          { name: "node2", endpoint: "tcp://172.18.0.3:2375" },
        ],
        tlsDir: null,
        registry: { push: "127.0.0.1:5000", pull: "registry:5000" },
        machines: "auto",
      },
    });
    const apart = engineFromArgs(args({ machines: "separate" }));
    expect(apart.ok && apart.config.machines).toBe("separate");
  });

  it("name the option and its rule", () => {
    expect(errors({ manager: undefined })).toEqual(["--manager is required: a manager's engine, tcp://HOST:PORT"]);
    expect(errors({ manager: "https://x:1" })).toEqual([
      "--manager: manager must be a Docker endpoint tcp://HOST:PORT (port 1–65535) or unix:///absolute/path.sock",
    ]);
    expect(errors({ node: ["node1"] })[0]).toBe("--node node1: must be NAME=tcp://HOST:PORT (the node's hostname and its own engine)");
    expect(errors({ node: ["node1=tcp://h:1;reboot"] })[0]).toMatch(/^--node: nodes\[\].endpoint must be a Docker endpoint/);
    expect(errors({ name: "local" })[0]).toMatch(/^NAME: name must not be "local"/);
    expect(errors({ "registry-pull": undefined })[0]).toMatch(/^--registry-push and --registry-pull go together/);
    expect(errors({ "registry-pull": "registry" })[0]).toMatch(/^--registry-pull: registry.pull must be HOST:PORT/);
    expect(errors({ machines: "some" })).toEqual(["--machines: machines must be one of auto, shared, separate"]);
  });

  it("need a TLS directory with ca.pem, cert.pem and key.pem", () => {
    const dir = mkdtempSync(join(tmpdir(), "lab-tls-"));
    writeFileSync(join(dir, "ca.pem"), "x");
    expect(errors({ "tls-dir": dir })).toEqual([`--tls-dir ${dir}: must hold ca.pem, cert.pem, key.pem (missing cert.pem, key.pem)`]);
    writeFileSync(join(dir, "cert.pem"), "x");
    writeFileSync(join(dir, "key.pem"), "x");
    expect(errors({ "tls-dir": dir })).toEqual([]);
    expect(errors({ "tls-dir": join(dir, "nope") })).toEqual([`--tls-dir ${join(dir, "nope")}: no such directory`]);
    expect(errors({ "tls-dir": "relative" })[0]).toMatch(/^--tls-dir: tlsDir must be an absolute path/);
  });
});
