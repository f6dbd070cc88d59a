import { EventSourceParserStream, EventSourceMessage } from "eventsource-parser/stream";
import { errorMessage } from "./log";

export type SseOptions = {
  signal: AbortSignal;
  /** How long to keep retrying the connection (the server may not listen yet). */
  connectTimeoutMs: number;
  retryDelayMs?: number;
  /**
   * How long one attempt may take to get the response's headers before it is dropped and made
   * again (default 2 s). Without it a connection whose SYN was lost (a container's network just
   * set up, the engine rewriting its rules for other runs) waits on the kernel's backoff and
   * fetch's 10 s connect timeout: k6's dashboard replays what it sent meanwhile to a late client,
   * so the load's seconds then arrived all at once at its end instead of live.
   */
  attemptTimeoutMs?: number;
  /** Called once connected: how many attempts it took and how long since the first. */
  onConnected?: (attempts: number, ms: number) => void;
  /** Called before each retry; throw to give up (e.g. the server's container has exited). */
  beforeRetry?: () => Promise<void>;
};

/**
 * The events of an SSE stream. Leaving the loop (break, return, throw) closes the connection,
 * which matters for k6: it waits for dashboard clients to disconnect before it exits.
 */
export async function* sseEvents(url: string, opts: SseOptions): AsyncGenerator<EventSourceMessage> {
  const started = Date.now();
  const deadline = started + opts.connectTimeoutMs;
  const attemptMs = opts.attemptTimeoutMs ?? 2_000;
  let body: ReadableStream<Uint8Array> | undefined;
  let attempts = 0;
  while (!body) {
    attempts++;
    // Bounds this attempt until its headers come; the body then streams under the caller's signal alone.
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new Error(`no answer within ${attemptMs / 1000} s`)), attemptMs);
    try {
      const res = await fetch(url, { signal: AbortSignal.any([opts.signal, attempt.signal]), headers: { accept: "text/event-stream" } });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      body = res.body;
      opts.onConnected?.(attempts, Date.now() - started);
    } catch (err) {
      opts.signal.throwIfAborted();
      if (Date.now() >= deadline)
        throw new Error(`could not connect to ${url} within ${opts.connectTimeoutMs / 1000} s: ${errorMessage(err)}`);
      await opts.beforeRetry?.();
      await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 200));
    } finally {
      clearTimeout(timer);
    }
  }
  const reader = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
