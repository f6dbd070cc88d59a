import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createDb } from "@scalelab/db";
import { isTerminal, TRunCreateInput, TRunStatus, TRunSummary } from "@scalelab/scenarios/contract";
import { parseEnv } from "../env";

/** What the bench scripts share: options, the lab's REST API, the run timeline, process-group CPU. */
export async function openBench(extra: Record<string, { type: "string" | "boolean"; default?: string | boolean }> = {}) {
  const { values } = parseArgs({
    options: {
      ...extra,
      reps: { type: "string", default: "3" },
      web: { type: "string", default: "http://127.0.0.1:3000" },
      state: { type: "string", default: join(import.meta.dirname, "../../../../.scalelab") },
    },
  });
  const REPS = Number(values.reps);
  const WEB = values.web!;
  const env = parseEnv();
  const db = createDb(env.DATABASE_URL);

  const fmt = (x: number, digits = 2) => x.toFixed(digits);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function api<T>(path: string, init?: RequestInit): Promise<T> {
    const res = await fetch(`${WEB}/api/v1${path}`, { ...init, headers: { "content-type": "application/json" } });
    if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  type RunView = { id: string; status: TRunStatus; error: string | null; summary: TRunSummary | null };

  async function startRun(body: TRunCreateInput): Promise<{ id: string; postedAt: number }> {
    const postedAt = performance.now();
    const { id } = await api<{ id: string }>("/runs", { method: "POST", body: JSON.stringify(body) });
    return { id, postedAt };
  }

  async function waitDone(id: string, onTick?: () => Promise<void>): Promise<RunView> {
    for (;;) {
      const run = await api<RunView>(`/runs/${id}`);
      if (isTerminal(run.status)) {
        if (run.status !== "succeeded") throw new Error(`run ${id} ended ${run.status}: ${run.error}`);
        return run;
      }
      await onTick?.();
      await sleep(250);
    }
  }

  /** Seconds each step took, from the worker's "<step> took X s" timeline entries. */
  async function stepSeconds(id: string): Promise<Record<string, number>> {
    const events = await db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } });
    const out: Record<string, number> = {};
    for (const e of events) {
      const m = /^(\w+) took ([\d.]+) s$/.exec(e.message);
      if (m) out[m[1]!] = Number(m[2]);
    }
    return out;
  }

  /** CPU seconds used so far by every process in the process group recorded in `<state>/<name>.pid`. */
  function groupCpuSeconds(name: string): number {
    const pgid = readFileSync(join(values.state!, `${name}.pid`), "utf8").trim();
    const hz = Number(execFileSync("getconf", ["CLK_TCK"]).toString());
    let ticks = 0;
    for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      } catch {
        continue;
      }
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (f[2] === pgid) ticks += Number(f[11]) + Number(f[12]);
    }
    return ticks / hz;
  }

  return { values, REPS, WEB, env, db, fmt, sleep, api, startRun, waitDone, stepSeconds, groupCpuSeconds };
}
