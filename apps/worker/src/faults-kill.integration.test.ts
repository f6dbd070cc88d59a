import { spawn, ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ZFaultRecord } from "@scalelab/scenarios/contract";
import { LABELS } from "@scalelab/scenarios/plan";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inheritedEnv, parseEnv } from "./env";
import { createLogger } from "./log";
import { openLab, waitFor, Lab } from "./testing/lab";
import { start, WorkerHandle } from "./worker";

/*
 * A worker killed (SIGKILL: no teardown of its own) while a replica is paused and another sits
 * behind a network delay: the next worker marks the run interrupted and removes everything it
 * left, the paused container and the proxy included. Real Docker engine, Postgres and Redis; the
 * killed worker is a real process.
 */
const env = parseEnv();
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
const WORKER_DIR = fileURLToPath(new URL("..", import.meta.url));
let lab: Lab;
let child: ChildProcess | undefined;
let next: WorkerHandle | undefined;

beforeAll(async () => {
  lab = await openLab(env, docker);
});

afterAll(async () => {
  // Still running only if the test failed before it killed the worker.
  if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
  await next?.close();
  await lab?.close();
});

describe("a worker killed during faults", () => {
  it("leaves nothing behind once the next worker starts, with a replica paused and another behind a delay", async () => {
    child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: WORKER_DIR,
      env: inheritedEnv(),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));

    const id = await lab.createRun({
      name: "faults: worker killed while paused and delayed",
      topology: { service: { replicas: 2, memoryMb: 64 }, balancer: { kind: "nginx" } },
      workload: { arrivalRate: 10, durationSeconds: 120, requestTimeoutMs: 1000 },
      faults: [
        { at: 1, action: "pause", target: { role: "app", index: 0 } },
        { at: 1, action: "delay", ms: 100, target: { role: "app", index: 1 } },
      ],
    });
    await waitFor(`both faults applied (worker output:\n${output.slice(-2000)})`, 240_000, async () => {
      const row = await lab.db.run.findUniqueOrThrow({ where: { id } });
      const faults = ZFaultRecord.array().parse(row.faults);
      if (row.status !== "running" && row.status !== "queued")
        throw new Error(`run ended ${row.status}: ${row.error}\n${output.slice(-2000)}`);
      return faults.every((f) => f.actual) ? faults : undefined;
    }).then((faults) => {
      for (const f of faults) expect(f.actual?.error, `${f.action}: ${f.actual?.error}`).toBeUndefined();
    });
    const running = await docker.listContainers({ all: true, filters: { label: [`${LABELS.run}=${id}`] } });
    expect(running.filter((c) => c.State === "paused").map((c) => c.Labels[LABELS.role])).toEqual(["app"]);
    expect(running.some((c) => c.Labels[LABELS.role] === "proxy")).toBe(true);

    process.kill(-child.pid!, "SIGKILL");
    await new Promise((r) => child!.once("exit", r));

    next = await start({ env, log: createLogger("worker:after-kill") });
    await waitFor("the next worker to remove the killed run's containers and network", 60_000, async () =>
      (await lab.leftovers(id)).length === 0 ? true : undefined,
    );
    const row = await lab.db.run.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("interrupted");
  });
});
