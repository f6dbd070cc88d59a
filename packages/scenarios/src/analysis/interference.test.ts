import { describe, expect, it } from "vitest";
import { EngineEvent, InterferenceReader, interferencePhrase, isOwnEvent } from "./interference";

/*
 * Event sequences as Docker 20.10 reported them for a container of the lab (`docker events`
 * --format '{{json .}}'): a stop is kill(15), die, stop; a stop that outlasts the 10 s grace adds
 * kill(9) before the die; a restart is kill, die, stop, start, restart; an OOM kill is oom, die.
 */
const T0 = 1_700_000_000_000;
const containers = [
  { name: "sl-1-app-0", title: "replica app-0", role: "app" },
  { name: "sl-1-app-1", title: "replica app-1", role: "app" },
  { name: "sl-1-loadgen-0", title: "k6", role: "loadgen" },
];
const ev = (container: string, action: EngineEvent["action"], s: number, more: Partial<EngineEvent> = {}): EngineEvent => ({
  container: `sl-1-${container}`,
  action,
  atMs: T0 + s * 1000,
  ...more,
});
const started = () => {
  const r = new InterferenceReader(containers);
  for (const c of ["app-0", "app-1"]) expect(r.push(ev(c, "start", -20))).toBeUndefined();
  r.begin(T0);
  return r;
};
const messages = (r: InterferenceReader, events: EngineEvent[]) => events.map((e) => r.push(e)).filter((n) => n !== undefined);

describe("outside interference", () => {
  it("a docker stop of a replica and its start 9 s later: one event each, and the span in the summary", () => {
    const r = started();
    const notes = messages(r, [
      ev("app-0", "kill", 12, { signal: 15 }),
      ev("app-0", "die", 12.04, { exitCode: 0, oomKilled: false }),
      ev("app-0", "stop", 12.1),
      ev("app-0", "start", 21.02),
    ]);
    expect(notes.map((n) => n.message)).toEqual([
      "replica app-0 was stopped from outside the run at 12 s of the load (exit code 0, not OOM-killed)",
      "replica app-0 was started again from outside the run at 21 s of the load, 9 s after it went down",
    ]);
    expect(r.entries()).toEqual([
      {
        container: "sl-1-app-0",
        title: "replica app-0",
        role: "app",
        action: "stop",
        at: 12,
        until: 21,
        exitCode: 0,
        oomKilled: false,
        signal: 15,
      },
    ]);
    expect(interferencePhrase(r.entries()[0]!)).toBe("replica app-0 was stopped from outside for 9 s (from 12 s to 21 s)");
  });

  it("the run's own stop, start, kill, restart, pause and unpause are not interference, however the engine orders their events", () => {
    const r = started();
    const act = (container: string, action: Parameters<InterferenceReader["ownAction"]>[1], from: number, until: number) =>
      r.ownAction(`sl-1-${container}`, action, T0 + from * 1000).done(T0 + until * 1000);
    act("app-0", "stop", 2, 2.3);
    act("app-0", "start", 6, 6.4);
    act("app-1", "kill", 3, 3.1);
    act("app-1", "restart", 8, 8.6);
    act("app-1", "pause", 11, 11.01);
    act("app-1", "unpause", 13, 13.01);
    const notes = messages(r, [
      // Stamped a few ms before the worker's clock read the call.
      ev("app-0", "kill", 1.995, { signal: 15 }),
      ev("app-0", "die", 2.2, { exitCode: 0 }),
      ev("app-0", "stop", 2.35),
      ev("app-1", "kill", 3.02, { signal: 9 }),
      ev("app-1", "die", 3.05, { exitCode: 137 }),
      ev("app-0", "start", 6.3),
      ev("app-1", "kill", 8.0, { signal: 15 }),
      ev("app-1", "die", 8.3, { exitCode: 137 }),
      ev("app-1", "stop", 8.35),
      ev("app-1", "start", 8.55),
      ev("app-1", "restart", 8.56),
      ev("app-1", "pause", 11.005),
      ev("app-1", "unpause", 13.005),
    ]);
    expect(notes).toEqual([]);
    expect(r.entries()).toEqual([]);
  });

  it("matches an own action by container: a stop of another replica in the same second is interference", () => {
    const r = started();
    r.ownAction("sl-1-app-0", "stop", T0 + 5000).done(T0 + 5200);
    const notes = messages(r, [
      ev("app-0", "kill", 5.01, { signal: 15 }),
      ev("app-0", "die", 5.1, { exitCode: 0 }),
      ev("app-1", "kill", 5.02, { signal: 15 }),
      ev("app-1", "die", 5.12, { exitCode: 143 }),
    ]);
    expect(notes.map((n) => n.message)).toEqual([
      "replica app-1 was stopped from outside the run at 5.1 s of the load (exit code 143, not OOM-killed)",
    ]);
  });

  it("an own action's window closes: the same action on the same container 3 s after the engine answered is someone else's", () => {
    const r = started();
    r.ownAction("sl-1-app-0", "pause", T0 + 5000).done(T0 + 5010);
    r.ownAction("sl-1-app-0", "unpause", T0 + 6000).done(T0 + 6010);
    const notes = messages(r, [
      ev("app-0", "pause", 5.005),
      ev("app-0", "unpause", 6.005),
      ev("app-0", "pause", 9),
      ev("app-0", "unpause", 13),
    ]);
    expect(notes.map((n) => n.message)).toEqual([
      "replica app-0 was paused from outside the run at 9 s of the load",
      "replica app-0 was unpaused again from outside the run at 13 s of the load, 4 s after it was paused",
    ]);
    expect(r.entries()).toMatchObject([{ action: "pause", at: 9, until: 13 }]);
  });

  it("a docker stop that outlasts its grace keeps its SIGTERM: a stop, not a kill; a docker kill is a kill", () => {
    const r = started();
    messages(r, [
      ev("app-0", "kill", 4, { signal: 15 }),
      ev("app-0", "kill", 14, { signal: 9 }),
      ev("app-0", "die", 14.02, { exitCode: 137 }),
      ev("app-1", "kill", 6, { signal: 9 }),
      ev("app-1", "die", 6.03, { exitCode: 137 }),
    ]);
    expect(r.entries().map((i) => `${i.title} ${i.action} ${i.signal} @${i.at}`)).toEqual([
      "replica app-0 stop 15 @14",
      "replica app-1 kill 9 @6",
    ]);
    expect(interferencePhrase(r.entries()[1]!)).toBe(
      "replica app-1 was killed from outside (exit code 137) from 6 s to the end of the load",
    );
  });

  it("a die nothing sent is a crash (or an exit on its own with code 0), with the container's last output", () => {
    const r = started();
    const [note] = messages(r, [ev("app-1", "die", 7.5, { exitCode: 2, oomKilled: false })]);
    expect(note).toEqual({
      message:
        "replica app-1 crashed on its own at 7.5 s of the load, not stopped by the run nor from outside (exit code 2, not OOM-killed)",
      lastOutput: true,
    });
    expect(r.entries()).toMatchObject([{ action: "crash", at: 7.5, exitCode: 2, oomKilled: false }]);
    expect(messages(r, [ev("app-0", "die", 9, { exitCode: 0, oomKilled: false })])[0]!.message).toMatch(
      /^replica app-0 exited on its own at 9 s/,
    );
    expect(interferencePhrase(r.entries()[1]!)).toBe(
      "replica app-0 exited on its own (exit code 0) and was down from 9 s to the end of the load",
    );
  });

  it("an OOM kill is said when it comes, and the death it causes completes the same entry", () => {
    const r = started();
    const notes = messages(r, [ev("app-0", "oom", 3), ev("app-0", "die", 3.02, { exitCode: 137, oomKilled: true })]);
    expect(notes.map((n) => n.message)).toEqual([
      "a process of replica app-0 was killed for lack of memory at 3 s of the load (the kernel's OOM killer, at the container's memory limit)",
      "replica app-0 was killed for lack of memory at 3 s of the load (exit code 137, OOM-killed)",
    ]);
    expect(r.entries()).toEqual([
      { container: "sl-1-app-0", title: "replica app-0", role: "app", action: "oom", at: 3, exitCode: 137, oomKilled: true },
    ]);
    // A process killed while the container runs on (not its main process).
    const alone = started();
    messages(alone, [ev("app-1", "oom", 4)]);
    expect(interferencePhrase(alone.entries()[0]!)).toBe("a process of replica app-1 was killed for lack of memory at 4 s");
  });

  it("the load generator ending by itself is not interference; killed from outside it is", () => {
    const r = started();
    expect(messages(r, [ev("loadgen-0", "start", -0.5), ev("loadgen-0", "die", 16, { exitCode: 0 })])).toEqual([]);
    const k = started();
    expect(
      messages(k, [
        ev("loadgen-0", "start", -0.5),
        ev("loadgen-0", "kill", 5, { signal: 9 }),
        ev("loadgen-0", "die", 5.01, { exitCode: 137 }),
      ]),
    ).toHaveLength(1);
  });

  it("a start from outside while the fault timeline holds the container stopped is interference", () => {
    const r = started();
    r.ownAction("sl-1-app-0", "stop", T0 + 2000).done(T0 + 2300);
    const notes = messages(r, [
      ev("app-0", "kill", 2.01, { signal: 15 }),
      ev("app-0", "die", 2.1, { exitCode: 0 }),
      ev("app-0", "start", 4),
    ]);
    expect(notes.map((n) => n.message)).toEqual([
      "replica app-0 was started from outside the run at 4 s of the load, while the run's fault timeline had it stopped",
    ]);
    expect(interferencePhrase(r.entries()[0]!)).toBe(
      "replica app-0 was started from outside at 4 s while the fault timeline had it stopped",
    );
  });

  it("before the load, times say so", () => {
    const r = new InterferenceReader(containers);
    r.push(ev("app-0", "start", -20));
    expect(r.push(ev("app-0", "die", -3, { exitCode: 1 }))?.message).toMatch(/^replica app-0 crashed on its own before the load started/);
    r.begin(T0);
    expect(r.push(ev("app-0", "start", 2))?.message).toBe(
      "replica app-0 was started again from outside the run at 2 s of the load, 5 s after it went down",
    );
    expect(r.entries()).toMatchObject([{ action: "crash", at: -3, until: 2 }]);
    expect(interferencePhrase(r.entries()[0]!)).toBe(
      "replica app-0 crashed (exit code 1) and was down for 2 s (from before the load to 2 s)",
    );
  });

  it("isOwnEvent: a pending action (no answer yet) covers what follows its call", () => {
    const own = [{ container: "c", action: "stop" as const, fromMs: 1000 }];
    expect(isOwnEvent({ container: "c", action: "die", atMs: 12_000 }, own)).toBe(true);
    expect(isOwnEvent({ container: "c", action: "start", atMs: 12_000 }, own)).toBe(false);
    expect(isOwnEvent({ container: "c", action: "die", atMs: -1 }, own)).toBe(false);
  });
});
