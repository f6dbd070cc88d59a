import { SERVICE_KINDS } from "@scalelab/scenarios/components";
import { ZRunSummary } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * Experiment 7's servers for real, through the queue and the worker: each kind (and the testbed's
 * own `key` endpoint) as one replica hit directly with wrk for 5 s, serving the hot key from its
 * store with no errors, every response from that replica.
 */
const ctx = useLabWorker("hotkey");

describe("hot-key servers", () => {
  // A user's image serves what it serves: user-image and backend-header.integration.test.ts run one.
  it.each(SERVICE_KINDS.filter((k) => k !== "image"))("%s serves the hot key", async (kind) => {
    const id = await ctx.lab.createRun({
      name: `hot key ${kind}`,
      topology: { balancer: { kind: "none" }, service: { kind, replicas: 1, cpus: 0.5, memoryMb: 256 } },
      workload: { loadgen: "wrk", connections: 8, threads: 1, endpoint: "key", durationSeconds: 5, loadgenCpus: 0.5 },
    });
    const row = await ctx.lab.finished(id, 600_000);
    const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
    expect(row.error, events.map((e) => e.message).join("\n")).toBeNull();
    expect(row.status).toBe("succeeded");
    expect(await ctx.lab.leftovers(id)).toEqual([]);
    const summary = ZRunSummary.parse(row.summary);
    console.log(`${kind}: ${summary.rps} req/s, p99 ${summary.latencyMs.p99} ms`);
    expect(summary.requests).toBeGreaterThan(20);
    expect(summary.errors).toBe(0);
    expect(summary.backends).toEqual({ "app-0": summary.requests });
  });
});
