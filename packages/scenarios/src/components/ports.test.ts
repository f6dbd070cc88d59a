import { describe, expect, it } from "vitest";
import { dialedPorts } from "./ports";

describe("dialedPorts", () => {
  it("joins the connection ports, the probes', the figures endpoint's and publish, each once", () => {
    expect(
      dialedPorts({
        ports: [8080, 9090],
        ready: [
          { kind: "http", port: 8080, path: "/health" },
          { kind: "log", pattern: "started" },
          { kind: "tcp", port: 29092 },
        ],
        stats: { port: 8081, path: "/stats" },
        publish: [5665, 8080],
      }),
    ).toEqual([5665, 8080, 8081, 9090, 29092]);
  });

  it("is empty for a container the worker never dials", () => {
    expect(dialedPorts({ ready: [{ kind: "log", pattern: "x" }] })).toEqual([]);
  });
});
