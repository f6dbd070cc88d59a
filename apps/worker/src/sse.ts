import { EventSourceParserStream, EventSourceMessage } from "eventsource-parser/stream";
import { errorMessage } from "./log";

export type SseOptions = {
  signal: AbortSignal;
  /** How long to keep retrying the connection (the server may not listen yet). */
  connectTimeoutMs: number;
  retryDelayMs?: number;
  /** Called before each retry; throw to give up (e.g. the server's container has exited). */
  beforeRetry?: () => Promise<void>;
};

/**
 * The events of an SSE stream. Leaving the loop (break, return, throw) closes the connection,
 * which matters for k6: it waits for dashboard clients to disconnect before it exits.
 */
export async function* sseEvents(url: string, opts: SseOptions): AsyncGenerator<EventSourceMessage> {
  const deadline = Date.now() + opts.connectTimeoutMs;
  let body: ReadableStream<Uint8Array> | undefined;
  while (!body) {
    try {
      const res = await fetch(url, { signal: opts.signal, headers: { accept: "text/event-stream" } });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      body = res.body;
    } catch (err) {
      opts.signal.throwIfAborted();
      if (Date.now() >= deadline)
        throw new Error(`could not connect to ${url} within ${opts.connectTimeoutMs / 1000} s: ${errorMessage(err)}`);
      await opts.beforeRetry?.();
      await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 200));
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
