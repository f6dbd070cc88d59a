import { describe, expect, it } from "vitest";
import { faultIssues, faultSchedule, ZFault, FaultableRole, TFaultInput } from "./faults";
import { faultableRoles } from "../components/registry";
import { ZRunCreate, TRunCreateInput } from "./run";

const roles: Record<string, FaultableRole> = {
  app: { count: 4, title: "replicas (app)", incoming: true },
  lb: { count: 1, title: "balancer (lb)", incoming: true },
  consumer: { count: 1, title: "consumer (consumer)", incoming: false },
};
const f = (at: number, action: TFaultInput["action"], index = 0, extra: Partial<TFaultInput> = {}, role = "app") =>
  ZFault.parse({ at, action, target: { role, index }, ...extra });
const messages = (faults: ReturnType<typeof f>[], duration = 180) => faultIssues(faults, roles, duration).map((i) => i.message);

describe("fault schema", () => {
  it("takes the parameters of its action and refuses the others, naming them", () => {
    expect(ZFault.safeParse({ at: 0, action: "delay", ms: 200, jitterMs: 20, target: { role: "app", index: 0 } }).success).toBe(true);
    const missing = ZFault.safeParse({ at: 0, action: "delay", target: { role: "app" } });
    expect(missing.error?.issues[0]?.message).toBe("delay needs ms (1–60000)");
    const extra = ZFault.safeParse({ at: 0, action: "stop", ms: 5, target: { role: "app" } });
    expect(extra.error?.issues[0]?.message).toBe("ms applies to delay only, not to stop");
    const loss = ZFault.safeParse({ at: 0, action: "loss", percent: 150, target: { role: "app" } });
    expect(loss.error?.issues[0]?.message).toBe("percent must be between 0.1 and 100");
    expect(ZFault.safeParse({ at: 0, action: "explode", target: { role: "app" } }).error?.issues[0]?.message).toMatch(
      /^action must be one of: stop, start/,
    );
    expect(ZFault.parse({ at: 1, action: "pause", target: { role: "app" } }).target.index).toBe(0);
  });

  it("orders the schedule by second, then as listed", () => {
    const s = faultSchedule([f(60, "stop", 3), f(30, "stop", 2), f(30, "pause", 1)]);
    expect(s.map((x) => x.index)).toEqual([1, 2, 0]);
  });
});

describe("fault timeline against the run", () => {
  it("accepts experiment 6's timeline", () => {
    expect(messages([f(30, "stop", 2), f(60, "stop", 3), f(90, "start", 2), f(120, "start", 3)])).toEqual([]);
  });

  it("refuses a fault after the end of the load", () => {
    expect(messages([f(180, "stop", 0)])).toEqual([
      "faults[0] (stop app-0 @180s): at must be before the end of the load (0–179 s for workload.durationSeconds 180)",
    ]);
  });

  it("refuses an index past the replicas and an unknown role", () => {
    expect(messages([f(1, "stop", 4)])).toEqual([
      "faults[0] (stop app-4 @1s): target.index must be between 0 and 3: the run has 4 replicas (app)",
    ]);
    expect(messages([f(1, "stop", 0, {}, "kafka")])[0]).toBe(
      "faults[0] (stop kafka-0 @1s): the run has no kafka; roles it can fault: app, lb, consumer",
    );
  });

  it("follows each container's state: start needs stopped, unpause needs paused", () => {
    expect(messages([f(10, "start", 1)])).toEqual([
      "faults[0] (start app-1 @10s): start needs a stopped container (stop or kill it first); app-1 is running at 10 s",
    ]);
    // Listed out of order: the schedule is by second.
    expect(messages([f(20, "start", 1), f(10, "kill", 1)])).toEqual([]);
    expect(messages([f(10, "pause", 0), f(12, "stop", 0)])).toEqual([
      "faults[1] (stop app-0 @12s): stop needs a running container; app-0 is paused at 12 s",
    ]);
    expect(messages([f(10, "unpause", 0)])[0]).toMatch(/unpause needs a paused container/);
    expect(messages([f(10, "stop", 0), f(12, "restart", 0), f(14, "pause", 0), f(15, "unpause", 0)])).toEqual([]);
  });

  it("allows one network fault per target at a time, ended by clear", () => {
    expect(messages([f(0, "delay", 0, { ms: 200 }), f(5, "loss", 0, { percent: 10 })])).toEqual([
      "faults[1] (loss app-0 @5s): overlaps faults[0] (delay app-0 @0s): one network fault at a time per target, clear it first",
    ]);
    expect(messages([f(0, "delay", 0, { ms: 200 }), f(5, "clear", 0), f(6, "loss", 0, { percent: 10 }), f(6, "reset", 1)])).toEqual([]);
    expect(messages([f(3, "clear", 0)])[0]).toMatch(/clear needs a network fault on app-0 before it/);
    expect(messages([f(3, "delay", 0, { ms: 5 }, "consumer")])[0]).toMatch(
      /consumer cannot take a network fault: no proxy can stand in front of it/,
    );
  });
});

describe("faults in the run definition", () => {
  const run = (faults: unknown[], extra: Partial<TRunCreateInput["topology"]> = {}): TRunCreateInput => ({
    topology: { service: { replicas: 3 }, balancer: { kind: "nginx" }, ...extra },
    workload: { arrivalRate: 8, durationSeconds: 60 },
    faults: faults as TRunCreateInput["faults"],
  });

  it("defaults to none and reports each bad fault by its path", () => {
    expect(ZRunCreate.parse(run([])).faults).toEqual([]);
    const r = ZRunCreate.safeParse(
      run([
        { at: 10, action: "stop", target: { role: "app", index: 3 } },
        { at: 70, action: "pause", target: { role: "lb" } },
      ]),
    );
    expect(r.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["faults.0.target.index", "faults[0] (stop app-3 @10s): target.index must be between 0 and 2: the run has 3 replicas (app)"],
      ["faults.1.at", "faults[1] (pause lb-0 @70s): at must be before the end of the load (0–59 s for workload.durationSeconds 60)"],
    ]);
  });

  it("knows the roles of every topology from its plan", () => {
    const async = ZRunCreate.parse({
      topology: {
        service: { replicas: 2 },
        downstream: { mode: "async", replicas: 2 },
        broker: { kind: "kafka" },
        storage: { kind: "postgres" },
      },
      workload: { vus: 1, endpoint: "products" },
    });
    const r = faultableRoles(async);
    expect(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, [v.count, v.incoming]]))).toEqual({
      app: [2, true],
      lb: [1, true],
      kafka: [1, true],
      db: [1, true],
      consumer: [2, false],
    });
  });
});
