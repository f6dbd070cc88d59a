import { describe, expect, it } from "vitest";
import { faultEffects, imbalanceIndex, runImbalance, EffectSample } from "./fault-effects";
import { ZFault, TFaultInput } from "../contract/faults";

const backends = ["app-0", "app-1", "app-2", "app-3"];
const f = (at: number, action: TFaultInput["action"], index: number, extra: Partial<TFaultInput> = {}) =>
  ZFault.parse({ at, action, target: { role: "app", index }, ...extra });

/** Round robin at 8 req/s over the live replicas; `down(t)` says which are out of service in second t. */
function roundRobin(duration: number, down: (t: number) => number[], errorsAt: Record<number, number> = {}): EffectSample[] {
  return Array.from({ length: duration }, (_, t) => {
    const live = backends.filter((_, i) => !down(t).includes(i));
    const counts = Object.fromEntries(live.map((b) => [b, 8 / live.length]));
    return { t, errors: errorsAt[t] ?? 0, backends: counts, ...(errorsAt[t] && { errorKinds: { "502": errorsAt[t] } }) };
  });
}

describe("imbalance", () => {
  it("is max/mean over every backend, the missing ones as 0", () => {
    expect(imbalanceIndex({ "app-0": 2, "app-1": 2, "app-2": 2, "app-3": 2 }, backends)).toBe(1);
    expect(imbalanceIndex({ "app-0": 8 }, backends)).toBe(4);
    expect(imbalanceIndex({ "app-0": 3, "app-1": 1 }, ["app-0", "app-1"])).toBe(1.5);
    expect(imbalanceIndex({}, backends)).toBeUndefined();
  });

  it("summarises a run by its totals and the median of its seconds", () => {
    const samples: EffectSample[] = [
      { t: 0, errors: 0, backends: { "app-0": 4, "app-1": 4 } },
      { t: 1, errors: 0, backends: { "app-0": 8 } },
      { t: 2, errors: 0, backends: { "app-0": 4, "app-1": 4 } },
    ];
    expect(runImbalance(samples, { "app-0": 16, "app-1": 8 }, ["app-0", "app-1"])).toEqual({
      method: "max/mean",
      run: 1.333,
      medianPerSecond: 1,
    });
  });
});

describe("fault effects", () => {
  it("reads experiment 6: two stops and two starts, each with its failures, shift and return", () => {
    // app-2 out from 30 (back at 93), app-3 out from 61 (back at 121): nginx finds a started server again after its fail_timeout.
    const down = (t: number) => [...(t >= 30 && t < 93 ? [2] : []), ...(t >= 61 && t < 121 ? [3] : [])];
    const samples = roundRobin(180, down, { 30: 2, 60: 1, 61: 1 });
    const faults = [f(30, "stop", 2), f(60, "stop", 3), f(90, "start", 2), f(120, "start", 3)];
    const effects = faultEffects(faults, samples, { durationSeconds: 180, backends });
    expect(effects.map((e) => [e.action, e.target.index, e.failedRequests, e.shiftSeconds, e.returnSeconds])).toEqual([
      ["stop", 2, 2, 1, 4],
      ["stop", 3, 2, 2, 2],
      ["start", 2, 0, null, 4],
      ["start", 3, 0, null, 2],
    ]);
    expect(effects[0]!.errors).toEqual({ "502": 2 });
  });

  it("says null when the load never moved (round robin keeps sending to a slow replica)", () => {
    const samples = roundRobin(30, () => []);
    const [delay, clear] = faultEffects([f(5, "delay", 0, { ms: 200 }), f(20, "clear", 0)], samples, { durationSeconds: 30, backends });
    expect(delay).toMatchObject({ shiftSeconds: null, returnSeconds: null });
    expect(clear).toMatchObject({ shiftSeconds: null, returnSeconds: null });
  });

  it("counts a pause of the only replica as shifted while nothing answers, and back after unpause", () => {
    const one = ["app-0"];
    const samples: EffectSample[] = Array.from({ length: 20 }, (_, t) =>
      t >= 5 && t < 10 ? { t, errors: 10 } : { t, errors: 0, backends: { "app-0": 10 } },
    );
    const [pause, unpause] = faultEffects([f(5, "pause", 0), f(10, "unpause", 0)], samples, { durationSeconds: 20, backends: one });
    expect(pause).toMatchObject({ failedRequests: 50, shiftSeconds: 1, returnSeconds: 1 });
    expect(unpause).toMatchObject({ failedRequests: 0, shiftSeconds: null, returnSeconds: 1 });
  });

  it("gives a restart its own shift and return, and other roles failures only", () => {
    const samples = roundRobin(30, (t) => (t >= 10 && t < 13 ? [1] : []), { 10: 3 });
    const [restart, lb] = faultEffects([f(10, "restart", 1), ZFault.parse({ at: 20, action: "pause", target: { role: "lb" } })], samples, {
      durationSeconds: 30,
      backends,
    });
    expect(restart).toMatchObject({ failedRequests: 3, shiftSeconds: 1, returnSeconds: 4 });
    expect(lb).toMatchObject({ failedRequests: 0, shiftSeconds: null, returnSeconds: null });
  });
});
