import type { Db } from "@scalelab/db";
import type { TRunStatus, TRunStep } from "@scalelab/scenarios/schemas";
import type { Redis } from "ioredis";
import { errorMessage, type Logger } from "../log";
import { runChannel } from "@scalelab/scenarios/channels";
import { encodeChannelMessage, type TChannelMessage } from "@scalelab/scenarios/messages";

type Level = "info" | "warn" | "error";

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

  /** Updates what the current step is doing; repeated details are not written again. */
  detail(detail: string): Promise<void> {
    if (detail === this.stepDetail) return this.chain;
    this.stepDetail = detail;
    return this.write({ stepDetail: detail });
  }

  event(level: Level, message: string, step: TRunStep = this.current): Promise<void> {
    return this.enqueue(async () => {
      await this.db.runEvent.create({ data: { runId: this.runId, step, level, message } });
      await this.publish({ type: "event", level, step, message });
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

  private write(data: { status?: TRunStatus; step?: TRunStep; stepDetail?: string | null; error?: string | null; finishedAt?: Date }) {
    const message: TChannelMessage = { type: "status", status: this.status, step: this.current, stepDetail: this.stepDetail, error: this.error };
    return this.enqueue(async () => {
      await this.db.run.update({ where: { id: this.runId }, data });
      await this.publish(message);
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
