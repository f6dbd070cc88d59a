import { describe, expect, it } from "vitest";
import { parseChannelMessage } from "./messages";

const latencyMs = { avg: 2, p50: 1.5, p90: 3, p95: 4, p99: 8, max: 20 };

describe("parseChannelMessage", () => {
  it("reads each message the worker publishes", () => {
    expect(parseChannelMessage(JSON.stringify({ type: "sample", sample: { t: 3, requests: 120, errors: 0, latencyMs } }))).toMatchObject({
      type: "sample",
      sample: { t: 3 },
    });
    expect(
      parseChannelMessage(
        JSON.stringify({ type: "status", status: "running", step: "preparing_images", stepDetail: "testbed 3/9", error: null }),
      ),
    ).toEqual({ type: "status", status: "running", step: "preparing_images", stepDetail: "testbed 3/9", error: null });
    expect(parseChannelMessage(JSON.stringify({ type: "event", id: "7", level: "warn", step: "running", message: "slow" }))?.type).toBe(
      "event",
    );
    expect(
      parseChannelMessage(
        JSON.stringify({
          type: "containers",
          t: 4,
          containers: [{ container: "sl-1a2b3c4d-app-0", role: "app", cpuPct: 19.8, memBytes: 12_000_000, throttledPeriods: 40 }],
        }),
      )?.type,
    ).toBe("containers");
    expect(parseChannelMessage(JSON.stringify({ type: "figures", t: 5, figures: { "broker.lag": 12, "pool.busy": 3 } }))).toEqual({
      type: "figures",
      t: 5,
      figures: { "broker.lag": 12, "pool.busy": 3 },
    });
  });

  it("skips anything else instead of failing the stream", () => {
    expect(parseChannelMessage("not json")).toBeNull();
    expect(parseChannelMessage(JSON.stringify({ type: "status", status: "exploded", step: "x" }))).toBeNull();
    expect(parseChannelMessage(JSON.stringify({ type: "unknown" }))).toBeNull();
    expect(parseChannelMessage(JSON.stringify({ type: "figures", t: 1, figures: { "broker.lag": "many" } }))).toBeNull();
  });
});
