import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GRPC_METHOD, GRPC_SERVICE, HOSTNAME_PROTO } from "./grpc";

describe("the testbed's gRPC contract", () => {
  it("is the .proto the testbed ships", () => {
    const served = readFileSync(new URL("../../../../../apps/testbed/internal/server/hostname.proto", import.meta.url), "utf8");
    expect(HOSTNAME_PROTO).toBe(served);
  });

  it("names the service and method of the .proto", () => {
    const pkg = /^package ([\w.]+);$/m.exec(HOSTNAME_PROTO)?.[1];
    const service = /^service (\w+) \{$/m.exec(HOSTNAME_PROTO)?.[1];
    const method = /^ {2}rpc (\w+)\(/m.exec(HOSTNAME_PROTO)?.[1];
    expect(GRPC_SERVICE).toBe(`${pkg}.${service}`);
    expect(GRPC_METHOD).toBe(`${GRPC_SERVICE}/${method}`);
    expect(HOSTNAME_PROTO).toContain("string hostname = 1;");
  });
});
