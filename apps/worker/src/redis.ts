import { Redis } from "ioredis";

/** For the BullMQ Worker: its blocking commands must survive reconnects instead of failing. */
export const workerConnection = (url: string) => new Redis(url, { maxRetriesPerRequest: null, connectionName: "scalelab-worker" });

/** For publishing and plain commands: fail fast while Redis is away rather than queue up. Call `connect()`. */
export const producerConnection = (url: string) =>
  new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: false, lazyConnect: true, connectionName: "scalelab-worker-pub" });

/** For a BullMQ Queue that adds jobs: fails fast while Redis is away (BullMQ's advice for producers). */
export const queueConnection = (url: string) =>
  new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: false, connectionName: "scalelab-worker-queue" });

/** Subscriber mode; ioredis resubscribes after a reconnect. */
export const subscriberConnection = (url: string) => new Redis(url, { lazyConnect: true, connectionName: "scalelab-worker-sub" });

/** Connects a lazy connection, rejecting with the first connection error instead of retrying forever. */
export function connect(redis: Redis): Promise<void> {
  return new Promise((resolve, reject) => {
    redis.once("error", reject);
    redis.connect().then(() => {
      redis.off("error", reject);
      resolve();
    }, reject);
  });
}
