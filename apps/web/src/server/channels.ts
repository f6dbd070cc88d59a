import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";

/**
 * Fans one Redis subscriber connection out to any number of listeners, subscribing to a
 * channel while at least one listener wants it.
 */
export class RedisChannels {
  private readonly emitter = new EventEmitter();
  private readonly subscribed = new Map<string, { count: number; ready: Promise<unknown> }>();

  constructor(private readonly sub: Redis) {
    this.emitter.setMaxListeners(0);
    sub.on("message", (channel: string, message: string) => this.emitter.emit(channel, message));
  }

  /** Resolves once Redis has confirmed the subscription; returns the function that ends it. */
  async listen(channel: string, listener: (message: string) => void): Promise<() => void> {
    let entry = this.subscribed.get(channel);
    if (!entry) {
      entry = { count: 0, ready: this.sub.subscribe(channel) };
      this.subscribed.set(channel, entry);
    }
    entry.count += 1;
    this.emitter.on(channel, listener);
    let open = true;
    const close = () => {
      if (!open) return;
      open = false;
      this.emitter.off(channel, listener);
      const e = this.subscribed.get(channel);
      if (e && --e.count === 0) {
        this.subscribed.delete(channel);
        this.sub.unsubscribe(channel).catch(() => {});
      }
    };
    try {
      await entry.ready;
    } catch (err) {
      close();
      throw err;
    }
    return close;
  }
}
