import { runFindings } from "@scalelab/scenarios/analysis";
import { TRunCreateInput, ZRunSummary } from "@scalelab/scenarios/contract";
import { LABELS } from "@scalelab/scenarios/plan";
import { describe, expect, it } from "vitest";
import { useLabWorker, waitFor } from "./testing/lab";

/*
 * Outside interference for real, through the queue and the worker, against the real Docker engine,
 * Postgres and Redis: a replica stopped and started again behind the worker's back (as someone's
 * `docker stop` would) is on the run's timeline, in its summary and first in its findings; the same
 * stop and start done by the run's own fault timeline are not (faults.integration.test.ts asserts it
 * for every container action of the timeline).
 */
const ctx = useLabWorker("interference");

const TWO_REPLICAS = {
  topology: { service: { replicas: 2, memoryMb: 64 }, balancer: { kind: "nginx" as const } },
  workload: { arrivalRate: 30, durationSeconds: 10, requestTimeoutMs: 1000 },
};

async function finished(id: string) {
  const row = await ctx.lab.finished(id);
  const events = await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
  const timeline = events.map((e) => `${e.level} ${e.message}`);
  expect(row.error, timeline.join("\n")).toBeNull();
  expect(row.status, timeline.join("\n")).toBe("succeeded");
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  const summary = ZRunSummary.parse(row.summary);
  const findings = runFindings({ summary, hostCpus: 2, openModel: true });
  console.log(
    `${row.name}:\n  ${timeline.join("\n  ")}\n  interference ${JSON.stringify(summary.interference)}\n  findings ${JSON.stringify(findings.map((f) => f.message))}`,
  );
  return { summary, timeline, findings };
}

/** Waits until `seconds` of the run's load have passed (from its recorded start). */
async function loadReaches(id: string, seconds: number) {
  const startedAt = await waitFor("the load to start", 180_000, async () => {
    const row = await ctx.lab.db.run.findUniqueOrThrow({ where: { id } });
    return row.loadStartedAt ?? undefined;
  });
  const wait = startedAt.getTime() + seconds * 1000 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

async function replica(id: string, index: number) {
  const containers = await ctx.docker.listContainers({ all: true, filters: { label: [`${LABELS.run}=${id}`, `${LABELS.role}=app`] } });
  const c = containers.find((c) => c.Names[0]!.endsWith(`-app-${index}`));
  if (!c) throw new Error(`run ${id} has no app-${index}: ${containers.map((c) => c.Names[0]).join(", ")}`);
  return ctx.docker.getContainer(c.Id);
}

describe("outside interference", () => {
  it("a replica stopped from outside for 4 s: a timeline event with its exit code, an entry in the summary, the first finding", async () => {
    // A longer load than the other test's: the stop, 4 s and the start again take 8–12 s on a busy
    // shared host, and a start after the load's end is rightly no `until` (down to the end).
    const body: TRunCreateInput = {
      name: "interference: docker stop of app-0",
      ...TWO_REPLICAS,
      workload: { ...TWO_REPLICAS.workload, durationSeconds: 16 },
    };
    const id = await ctx.lab.createRun(body);
    await loadReaches(id, 4);
    const app0 = await replica(id, 0);
    await app0.stop({ t: 10 });
    await new Promise((r) => setTimeout(r, 4000));
    await app0.start();

    const { summary, timeline, findings } = await finished(id);
    expect(timeline).toContainEqual(
      expect.stringMatching(
        /^warn replica app-0 was stopped from outside the run at \d+(\.\d)? s of the load \(exit code \d+, not OOM-killed\)$/,
      ),
    );
    expect(timeline).toContainEqual(
      expect.stringMatching(
        /^warn replica app-0 was started again from outside the run at \d+(\.\d)? s of the load, \d+(\.\d)? s after it went down$/,
      ),
    );
    expect(summary.interference).toHaveLength(1);
    const [stop] = summary.interference!;
    expect(stop).toMatchObject({ title: "replica app-0", role: "app", action: "stop", oomKilled: false, signal: 15 });
    expect(stop!.container).toMatch(/-app-0$/);
    expect(stop!.exitCode).toEqual(expect.any(Number));
    // Stopped at about 4 s of the load for about 4 s (a shared 2-core machine: loose bounds).
    expect(stop!.at).toBeGreaterThanOrEqual(3.5);
    expect(stop!.at).toBeLessThan(7);
    expect(stop!.until! - stop!.at).toBeGreaterThan(3);
    expect(stop!.until! - stop!.at).toBeLessThan(6);
    expect(findings[0]).toMatchObject({
      code: "interference",
      level: "warn",
      message: expect.stringMatching(
        /^Outside interference: replica app-0 was stopped from outside for \d s \(from \d+ s to \d+ s\): the result is affected, not a clean measurement/,
      ),
    });
  });

  it("a replica whose process exits by itself (nothing stopped it through the engine): an event with its exit code and last output", async () => {
    const id = await ctx.lab.createRun({ name: "interference: app-1 exits on its own", ...TWO_REPLICAS });
    await loadReaches(id, 4);
    // From inside the container: the engine sees a die with no kill or stop before it, as for a crash.
    const exec = await (await replica(id, 1)).exec({ Cmd: ["sh", "-c", "kill -TERM 1"] });
    await exec.start({ Detach: true });

    const { summary, timeline, findings } = await finished(id);
    expect(timeline).toContainEqual(
      expect.stringMatching(
        /^warn replica app-1 exited on its own at \d+(\.\d)? s of the load, not stopped by the run nor from outside \(exit code 0, not OOM-killed\); last output:\n(.*\n)*.*testbed stopped$/,
      ),
    );
    expect(summary.interference).toMatchObject([{ title: "replica app-1", action: "crash", exitCode: 0, oomKilled: false }]);
    expect(summary.interference![0]!.until).toBeUndefined();
    expect(findings[0]!.message).toMatch(
      /^Outside interference: replica app-1 exited on its own \(exit code 0\) and was down from \d+ s to the end of the load: the result is affected/,
    );
  });
});
