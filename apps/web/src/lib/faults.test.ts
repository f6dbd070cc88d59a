import { faultableRoles } from "@scalelab/scenarios/components";
import { ZFault, type TFaultRecord } from "@scalelab/scenarios/contract";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import {
  effectGaps,
  errorKindsText,
  faultActionText,
  faultBody,
  faultCompareRows,
  faultFieldPaths,
  faultMarkers,
  labelLanes,
  nextFault,
  roleOption,
  type FaultFormValue,
} from "./faults";

const app = (index: number) => ({ role: "app", index });

describe("faultMarkers", () => {
  it("puts an applied fault at its actual second and one still to come at its planned second", () => {
    const faults: TFaultRecord[] = [
      { at: 7, action: "start", target: app(1) },
      { at: 3, action: "stop", target: app(1), actual: { atMs: 3042, lagMs: 42, tookMs: 310 } },
    ];
    expect(faultMarkers(faults)).toEqual([
      { t: 3.042, label: "stop app-1 @3s" },
      { t: 7, label: "start app-1 @7s" },
    ]);
  });

  it("draws faults of the same moment as one line and says which failed", () => {
    const faults: TFaultRecord[] = [
      { at: 30, action: "stop", target: app(2), actual: { atMs: 30_010, lagMs: 10, tookMs: 300 } },
      {
        at: 30,
        action: "pause",
        target: { role: "db", index: 0 },
        actual: { atMs: 30_020, lagMs: 20, tookMs: 5, error: "no such container" },
      },
    ];
    expect(faultMarkers(faults)).toEqual([{ t: 30.01, label: "stop app-2 @30s, pause db-0 @30s (failed)" }]);
    expect(faultMarkers(undefined)).toEqual([]);
  });
});

describe("texts", () => {
  it("names an action with the parameters it takes", () => {
    expect(faultActionText({ action: "delay", ms: 200, jitterMs: 20 })).toBe("delay 200 ms ± 20 ms");
    expect(faultActionText({ action: "loss", percent: 5 })).toBe("loss 5 %");
    expect(faultActionText({ action: "stop" })).toBe("stop");
    expect(errorKindsText({ "502": 3, conn: 1 })).toBe("3 × 502, 1 × conn");
    expect(errorKindsText(undefined)).toBe("");
  });
});

describe("effectGaps", () => {
  const timeline = [
    { at: 30, action: "stop" as const, target: app(2) },
    { at: 60, action: "stop" as const, target: app(3) },
    { at: 90, action: "start" as const, target: app(2) },
    { at: 100, action: "pause" as const, target: { role: "lb", index: 0 } },
  ];

  it("has nothing to explain when both times are known", () => {
    expect(effectGaps(timeline, 0, { shiftSeconds: 2, returnSeconds: 3 })).toEqual({});
  });

  it("tells a fault off the replicas from one the load never left, one never undone, and an undoing fault", () => {
    expect(effectGaps(timeline, 3, { shiftSeconds: null, returnSeconds: null }).shift).toMatch(/^not a replica/);
    expect(effectGaps(timeline, 0, { shiftSeconds: null, returnSeconds: null })).toEqual({
      shift: "the load never moved away from it",
      return: "never moved away, so nothing to come back from",
    });
    expect(effectGaps(timeline, 0, { shiftSeconds: 2, returnSeconds: null }).return).toBe("not back within the load");
    expect(effectGaps(timeline, 1, { shiftSeconds: 2, returnSeconds: null }).return).toBe("nothing undid it within the load");
    expect(effectGaps(timeline, 2, { shiftSeconds: null, returnSeconds: 4 }).shift).toMatch(/^undoes an earlier fault/);
  });
});

describe("the form's fault rows", () => {
  it("sends only the parameters the action takes, whatever the row kept from another action", () => {
    const row: FaultFormValue = { at: 5, action: "stop", target: app(0), ms: 200, percent: 3 };
    expect(faultBody(row)).toEqual({ at: 5, action: "stop", target: app(0) });
    expect(ZFault.safeParse(faultBody(row)).success).toBe(true);
    expect(faultBody({ ...row, action: "delay", jitterMs: undefined })).toEqual({ at: 5, action: "delay", target: app(0), ms: 200 });
  });

  it("proposes the undo of the last fault on its target, else a stop of the last replica", () => {
    const run = ZRunCreate.parse({
      topology: { service: { replicas: 3 } },
      workload: { endpoint: "cpu", arrivalRate: 20, durationSeconds: 12 },
    });
    const roles = faultableRoles(run);
    const first = nextFault([], roles, 12);
    expect(first).toEqual({ at: 4, action: "stop", target: app(2) });
    const second = nextFault([first], roles, 12);
    expect(second).toEqual({ at: 7, action: "start", target: app(2) });
    expect(nextFault([{ at: 11, action: "pause", target: app(0) }], roles, 12)).toMatchObject({ at: 11, action: "unpause" });
    // Both are valid against the run, so adding them never starts with an error.
    expect(ZRunCreate.safeParse({ ...run, faults: [first, second] }).success).toBe(true);
  });

  it("lists the paths a row shows, with its action's parameters", () => {
    expect(faultFieldPaths([{ at: 0, action: "delay", target: app(0) }])).toEqual([
      "faults.0.at",
      "faults.0.action",
      "faults.0.target.role",
      "faults.0.target.index",
      "faults.0.ms",
      "faults.0.jitterMs",
    ]);
  });

  it("labels a role with its count, and one the topology lacks as such", () => {
    expect(roleOption("app", { count: 3, title: "replicas (app)", incoming: true })).toBe("replicas (app) × 3");
    expect(roleOption("kafka", undefined)).toBe("kafka (not in this topology)");
  });
});

describe("faultCompareRows", () => {
  const stop = { at: 30, action: "stop" as const, target: app(2) };
  const start = { at: 90, action: "start" as const, target: app(2) };
  const effect = (failedRequests: number, shiftSeconds: number | null, returnSeconds: number | null) => ({
    ...stop,
    failedRequests,
    shiftSeconds,
    returnSeconds,
  });

  it("lines up the same faults of each run, in timeline order, with each run's total of failed requests", () => {
    const { rows, totals } = faultCompareRows([
      { id: "retry-off", faults: [start, stop], summary: { faults: [effect(0, null, 3), effect(7, 2, 3)] } },
      { id: "retry-on", faults: [stop, start], summary: { faults: [effect(1, 2, null), effect(0, null, 4)] } },
      { id: "no-faults", faults: [], summary: {} },
      { id: "running", faults: [stop], summary: null },
    ]);
    expect(rows.map((r) => r.label)).toEqual(["stop app-2 @30s", "start app-2 @90s"]);
    expect(rows[0]!.cells.map((c) => c?.failedRequests ?? null)).toEqual([7, 1, null, null]);
    expect(rows[1]!.cells.map((c) => c?.returnSeconds ?? null)).toEqual([3, 4, null, null]);
    expect(totals).toEqual([7, 1, null, null]);
  });

  it("keeps a fault that repeats in a run on rows of its own and names the parameters", () => {
    const delay = { at: 5, action: "delay" as const, ms: 200, target: app(0) };
    const { rows } = faultCompareRows([{ id: "a", faults: [delay, delay], summary: null }]);
    expect(rows.map((r) => [r.key, r.label])).toEqual([
      ["delay app-0 @5s", "delay 200 ms app-0 @5s"],
      ["delay app-0 @5s #2", "delay 200 ms app-0 @5s"],
    ]);
  });
});

describe("labelLanes", () => {
  it("stacks a label on a new lane only where it would cover another, and ends one at its mark near the right end", () => {
    const lanes = labelLanes(
      [
        { x: 100, width: 90 },
        { x: 150, width: 90 },
        { x: 200, width: 90 },
        { x: 300, width: 90 },
        { x: 560, width: 90 },
      ],
      600,
    );
    expect(lanes).toEqual([
      { lane: 0, alignRight: false },
      { lane: 1, alignRight: false },
      { lane: 0, alignRight: false },
      { lane: 0, alignRight: false },
      // 470–560 rather than past the end at 650.
      { lane: 0, alignRight: true },
    ]);
  });
});
