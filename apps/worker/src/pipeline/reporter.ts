import { Prisma, Db } from "@scalelab/db";
import { TFaultActual } from "@scalelab/scenarios/contract";
import { TRunStatus, TRunStep, TSample } from "@scalelab/scenarios/contract";
import { Redis } from "ioredis";
import { errorMessage, Logger } from "../log";
import { runChannel } from "@scalelab/scenarios/messages";
import { encodeChannelMessage, TChannelMessage } from "@scalelab/scenarios/messages";
import { ContainerRow } from "./container-stats";
import { THostSecond } from "@scalelab/scenarios/analysis";

type Level = "info" | "warn" | "error";

/**
 * A step's detail changes up to once a second (the load's progress, image-build steps): every
 * change is published at once, but stored at most this often, the last one always. The row is
 * what a page opened mid-run starts from; the live messages carry the rest.
 */
export const DETAIL_STORE_MS = 5_000;

/**
 * Persists a run's status, step and timeline and mirrors every change on the run's Redis
 * channel. Writes are chained so they land in the order they were made, even when a caller
 * (e.g. an image-build progress callback) does not await them.
 */
export class RunReporter {
  private chain: Promise<void> = Promise.resolve();
  private status: TRunStatus = "running";
  private stepDetail: string | null = null;
  private error: string | null = null;
  private stepStartedAt = Date.now();
  /** The detail as last stored, when it was stored, and the pending store of a newer one. */
  private storedDetail: string | null = null;
  private detailStoredAt = 0;
  private detailTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly pub: Redis,
    private readonly runId: string,
    private readonly log: Logger,
    private current: TRunStep,
  ) {}

  get step(): TRunStep {
    return this.current;
  }

  /** Enters a step; the timeline records how long the previous one took. */
  enter(step: TRunStep, detail?: string): Promise<unknown> {
    const took = this.endStep();
    this.current = step;
    this.stepDetail = detail ?? null;
    return Promise.all([took, this.write({ step, stepDetail: this.stepDetail })]);
  }

  /**
   * Updates what the current step is doing: published at once; stored at once unless it was
   * stored less than DETAIL_STORE_MS ago, then when that time is up (the latest detail by then).
   * Repeated details are neither published nor stored again.
   */
  detail(detail: string): Promise<void> {
    if (detail === this.stepDetail) return this.chain;
    this.stepDetail = detail;
    const wait = this.detailStoredAt + DETAIL_STORE_MS - Date.now();
    if (wait <= 0) return this.write({ stepDetail: detail });
    this.detailTimer ??= setTimeout(() => {
      this.detailTimer = undefined;
      if (this.stepDetail === this.storedDetail) return;
      // Already published when it came; only the row catches up.
      this.write({ stepDetail: this.stepDetail }, false).catch((err) =>
        this.log.warn("could not store the step's detail", { runId: this.runId, error: errorMessage(err) }),
      );
    }, wait).unref();
    const message = this.statusMessage();
    return this.enqueue(() => this.publish(message));
  }

  event(level: Level, message: string, step: TRunStep = this.current): Promise<void> {
    return this.enqueue(async () => {
      const row = await this.db.runEvent.create({ data: { runId: this.runId, step, level, message }, select: { id: true } });
      await this.publish({ type: "event", id: row.id.toString(), level, step, message });
    });
  }

  /*
   * The load's per-second rows: the load generator's bucket, every container's Docker stats, the
   * components' figures. Each is one INSERT (ON CONFLICT DO NOTHING: a second is stored once),
   * stored first and then published, so a page that subscribes and then reads the rows misses
   * none. Plain SQL rather than Prisma's createMany: called once a second, createMany costs the
   * worker about 4-10 ms of CPU per call (most of the control plane's cost during a load), an
   * INSERT about 1 ms (docs/BENCHMARKS.md, "Control plane cost and time to first sample").
   */

  async saveSample(s: TSample): Promise<void> {
    const l = s.latencyMs;
    await this.db.$executeRaw`
      INSERT INTO run_samples (run_id, t, requests, errors, lat_avg, lat_p50, lat_p90, lat_p95, lat_p99, lat_max, backends, backend_stats, error_kinds)
      VALUES (${this.runId}, ${s.t}, ${s.requests}, ${s.errors}, ${l?.avg ?? null}, ${l?.p50 ?? null}, ${l?.p90 ?? null},
              ${l?.p95 ?? null}, ${l?.p99 ?? null}, ${l?.max ?? null}, ${JSON.stringify(s.backends ?? {})}::jsonb,
              ${s.backendStats ? JSON.stringify(s.backendStats) : null}::jsonb, ${s.errorKinds ? JSON.stringify(s.errorKinds) : null}::jsonb)
      ON CONFLICT DO NOTHING`;
    await this.publish({ type: "sample", sample: s });
  }

  async saveContainers(t: number, rows: ContainerRow[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map(
      (r) =>
        Prisma.sql`(${this.runId}, ${t}, ${r.container}, ${r.role}, ${r.cpuPct}, ${BigInt(r.memBytes)}, ${r.throttledPeriods},
                    ${r.periods}, ${r.throttledMs}, ${r.netRxBps ?? null}, ${r.netTxBps ?? null})`,
    );
    await this.db.$executeRaw`
      INSERT INTO container_samples (run_id, t, container, role, cpu_pct, mem_bytes, throttled_periods, periods, throttled_ms, net_rx_bps, net_tx_bps)
      VALUES ${Prisma.join(values)}
      ON CONFLICT DO NOTHING`;
    await this.publish({ type: "containers", t, containers: rows });
  }

  /** The load's seconds on the host, all at once after the load (host-cpu.ts, collect.ts). */
  async saveHost(seconds: readonly THostSecond[]): Promise<void> {
    if (seconds.length === 0) return;
    const values = seconds.map(
      (h) =>
        Prisma.sql`(${this.runId}, ${h.node ?? "local"}, ${h.t}, ${h.cores}, ${h.hostCpuPct}, ${h.runCpuPct}, ${h.workerCpuPct}, ${h.otherCpuPct})`,
    );
    await this.db.$executeRaw`
      INSERT INTO host_samples (run_id, node, t, cores, host_cpu_pct, run_cpu_pct, worker_cpu_pct, other_cpu_pct)
      VALUES ${Prisma.join(values)}
      ON CONFLICT DO NOTHING`;
  }

  async saveFigures(t: number, figures: Record<string, number>): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO figure_samples (run_id, t, figures) VALUES (${this.runId}, ${t}, ${JSON.stringify(figures)}::jsonb)
      ON CONFLICT DO NOTHING`;
    await this.publish({ type: "figures", t, figures });
  }

  /**
   * Fault `index` was applied (or failed) at its actual time: its entry of the run's `faults` gains
   * `actual` (one small jsonb_set, so the definition written at creation is never rewritten).
   */
  saveFault(index: number, actual: TFaultActual): Promise<void> {
    return this.enqueue(async () => {
      await this.db.$executeRaw`
        UPDATE runs SET faults = jsonb_set(faults, ${[String(index), "actual"]}::text[], ${JSON.stringify(actual)}::jsonb)
        WHERE id = ${this.runId}`;
      await this.publish({ type: "fault", index, actual });
    });
  }

  /** The final state. `step` is where the run ended: "done", or the step that failed or was stopped. */
  finish(status: TRunStatus, step: TRunStep, error: string | null, detail: string | null = null): Promise<unknown> {
    const took = this.endStep();
    this.status = status;
    this.current = step;
    this.error = error;
    this.stepDetail = detail;
    return Promise.all([took, this.write({ status, step, stepDetail: detail, error, finishedAt: new Date() })]);
  }

  private statusMessage(): TChannelMessage {
    return { type: "status", status: this.status, step: this.current, stepDetail: this.stepDetail, error: this.error };
  }

  private write(
    data: { status?: TRunStatus; step?: TRunStep; stepDetail?: string | null; error?: string | null; finishedAt?: Date },
    publish = true,
  ) {
    const message = this.statusMessage();
    if ("stepDetail" in data) {
      // This write stores the current detail: a pending store of an older one is moot.
      clearTimeout(this.detailTimer);
      this.detailTimer = undefined;
      this.storedDetail = data.stepDetail ?? null;
      this.detailStoredAt = Date.now();
    }
    return this.enqueue(async () => {
      await this.db.run.update({ where: { id: this.runId }, data });
      if (publish) await this.publish(message);
    });
  }

  private endStep(): Promise<void> | undefined {
    const seconds = ((Date.now() - this.stepStartedAt) / 1000).toFixed(1);
    this.stepStartedAt = Date.now();
    return this.current === "queued" ? undefined : this.event("info", `${this.current} took ${seconds} s`);
  }

  /** Runs after every earlier write; the returned promise carries this write's failure, the chain does not. */
  private enqueue(op: () => Promise<void>): Promise<void> {
    const result = this.chain.then(op);
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Validated against the channel's schema before it is sent (a malformed message is a bug here, not in the reader). */
  async publish(message: TChannelMessage): Promise<void> {
    const wire = encodeChannelMessage(message);
    try {
      await this.pub.publish(runChannel(this.runId), wire);
    } catch (err) {
      // Postgres is the record; a missed live message only delays the dashboard until it reloads.
      this.log.warn("publish failed", { runId: this.runId, error: errorMessage(err) });
    }
  }
}
