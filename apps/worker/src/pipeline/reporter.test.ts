import { Db } from "@scalelab/db";
import { parseChannelMessage } from "@scalelab/scenarios/messages";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Logger } from "../log";
import { DETAIL_STORE_MS, RunReporter } from "./reporter";

const RUN = "00000000-0000-4000-8000-000000000001";

function fakes() {
  const stored: unknown[] = [];
  const published: unknown[] = [];
  const db = {
    run: { update: vi.fn(async ({ data }: { data: unknown }) => void stored.push(data)) },
    runEvent: { create: vi.fn(async () => undefined) },
  } as unknown as Db;
  const pub = { publish: vi.fn(async (_ch: string, raw: string) => void published.push(parseChannelMessage(raw))) } as unknown as Redis;
  const log = { info: vi.fn(), warn: vi.fn(), error: vi.fn() } as unknown as Logger;
  return { db, pub, log, stored, published };
}

const details = (messages: unknown[]) => messages.map((m) => (m as { stepDetail?: string | null }).stepDetail);

describe("RunReporter.detail", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("publishes every change at once but stores it at most every DETAIL_STORE_MS, the latest one last", async () => {
    const f = fakes();
    const report = new RunReporter(f.db, f.pub, RUN, f.log, "queued");
    await report.enter("running", "load running for 20 s");
    for (let s = 1; s <= 12; s++) {
      await vi.advanceTimersByTimeAsync(1000);
      await report.detail(`${s}/20 s`);
    }
    // Every second went out live, in order.
    expect(details(f.published.filter((m) => (m as { type: string }).type === "status"))).toEqual([
      "load running for 20 s",
      ...Array.from({ length: 12 }, (_, i) => `${i + 1}/20 s`),
    ]);
    // Stored: the step's start, then one detail per 5 s window (the latest at the time it is stored).
    expect(details(f.stored)).toEqual(["load running for 20 s", "4/20 s", "9/20 s"]);
    // The trailing store catches up with the last detail once its window is over.
    await vi.advanceTimersByTimeAsync(DETAIL_STORE_MS);
    expect(details(f.stored).at(-1)).toBe("12/20 s");
  });

  it("stores the first detail of a quiet step at once, and a new step or the end replaces a pending store", async () => {
    const f = fakes();
    const report = new RunReporter(f.db, f.pub, RUN, f.log, "queued");
    await vi.advanceTimersByTimeAsync(DETAIL_STORE_MS);
    await report.detail("starting 1 app");
    expect(details(f.stored)).toEqual(["starting 1 app"]);
    await report.detail("waiting for replica app-0");
    expect(details(f.stored)).toEqual(["starting 1 app"]);
    await report.finish("succeeded", "done", null);
    await vi.advanceTimersByTimeAsync(DETAIL_STORE_MS * 2);
    // The pending store of "waiting for …" never lands after the final state.
    expect(details(f.stored)).toEqual(["starting 1 app", null]);
    expect(f.stored.at(-1)).toMatchObject({ status: "succeeded", step: "done" });
  });

  it("does not publish or store a repeated detail", async () => {
    const f = fakes();
    const report = new RunReporter(f.db, f.pub, RUN, f.log, "queued");
    await report.detail("same");
    await report.detail("same");
    expect(f.published).toHaveLength(1);
    expect(f.stored).toHaveLength(1);
  });
});
