import { describe, expect, it } from "vitest";
import { encodeCancelMessage, encodeChannelMessage, parseCancelMessage, parseChannelMessage, runJob, ZRunJob } from "./messages";

describe("the message catalog", () => {
  it("builds the run job from its schema: the job id is the run id, a bad id is refused before it is queued", () => {
    expect(runJob("cm3x9k2abc0001")).toMatchObject({ name: "run", data: { runId: "cm3x9k2abc0001" }, opts: { jobId: "cm3x9k2abc0001" } });
    expect(() => runJob("../etc")).toThrow();
    expect(ZRunJob.safeParse({ runId: "cm3x9k2abc0001", extra: 1 }).success).toBe(false);
  });

  it("round-trips the cancel message and skips anything else on the channel", () => {
    expect(parseCancelMessage(encodeCancelMessage("cm3x9k2abc0001"))).toEqual({ type: "cancel", runId: "cm3x9k2abc0001" });
    expect(parseCancelMessage("cancel")).toBeNull();
    expect(parseCancelMessage('{"type":"cancel"}')).toBeNull();
    expect(() => encodeCancelMessage("NOT AN ID")).toThrow();
  });

  it("validates a live message when it is published and when it is read", () => {
    const status = { type: "status", status: "cancelled", step: "queued", stepDetail: "cancelled before it started", error: null } as const;
    expect(parseChannelMessage(encodeChannelMessage(status))).toEqual(status);
    expect(() => encodeChannelMessage({ ...status, status: "paused" } as never)).toThrow();
    expect(parseChannelMessage('{"type":"status","status":"paused","step":"x"}')).toBeNull();
  });
});
