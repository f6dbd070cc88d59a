import { ZRunCreate } from "@scalelab/scenarios/schemas";
import { describe, expect, it } from "vitest";
import { renderPreview } from "./preview";

describe("renderPreview", () => {
  it("shows the balancer config and the k6 script the worker will write", () => {
    const run = ZRunCreate.parse({
      topology: { balancer: { algorithm: "least_conn" }, service: { replicas: 2 } },
      workload: { endpoint: "hostname", vus: 2, durationSeconds: 8 },
    });
    const { nginxConf, k6Script } = renderPreview(run);
    expect(nginxConf).toContain("least_conn;");
    expect(nginxConf).toContain("server app-1:");
    expect(nginxConf).not.toContain("server app-2:");
    expect(k6Script).toContain('"constant-vus"');
    expect(k6Script).toContain("/hostname");
  });
});
