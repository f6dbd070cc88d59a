import { Db } from "@scalelab/db";
import { Redis } from "ioredis";
import { errorMessage, Logger } from "../log";
import { cancelChannel, parseCancelMessage } from "@scalelab/scenarios/messages";
import { deadline } from "./timing";

const REDIS_MS = 5_000;

/**
 * Calls `onCancel` when the web asks to cancel the run: a message on the run's cancel channel,
 * or, should that message be missed, `runs.cancel_requested` seen by polling (or the row gone).
 * Returns `unwatch`.
 */
export async function watchCancel(opts: {
  sub: Redis;
  db: Db;
  runId: string;
  onCancel: () => void;
  log: Logger;
  pollMs?: number;
}): Promise<() => Promise<void>> {
  const channel = cancelChannel(opts.runId);
  const onMessage = (ch: string, raw: string) => {
    if (ch === channel && parseCancelMessage(raw)?.runId === opts.runId) opts.onCancel();
  };
  opts.sub.on("message", onMessage);
  // Bounded: while Redis is away the subscriber queues commands; the database poll still works.
  await deadline(opts.sub.subscribe(channel), REDIS_MS, "Redis (subscribe)").catch((err) =>
    opts.log.warn("cancel channel not subscribed; polling only", { runId: opts.runId, error: errorMessage(err) }),
  );
  const timer = setInterval(() => {
    opts.db.run
      .findUnique({ where: { id: opts.runId }, select: { cancelRequested: true } })
      // A row that is gone (deleted outright, not through DELETE /runs/{id}) stops the run too.
      .then((r) => (r === null || r.cancelRequested) && opts.onCancel())
      .catch((err) => opts.log.warn("cancel poll failed", { runId: opts.runId, error: errorMessage(err) }));
  }, opts.pollMs ?? 1000);
  return async () => {
    clearInterval(timer);
    opts.sub.off("message", onMessage);
    await deadline(opts.sub.unsubscribe(channel), REDIS_MS, "Redis (unsubscribe)").catch(() => undefined);
  };
}
