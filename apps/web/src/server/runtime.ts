import { createDb, type Db } from "@scalelab/db";
import { Queue } from "bullmq";
import Docker from "dockerode";
import { Redis, type RedisOptions } from "ioredis";
import { getEnv } from "~/env";
import { RedisChannels } from "./channels";
import { RUN_QUEUE, type RunJobData } from "@scalelab/scenarios/messages";
import type { TQuotas } from "@scalelab/scenarios/experiments";

export type RunQueue = Queue<RunJobData>;

/** What the service functions need from the world; tests can pass their own. */
export type Deps = {
  db: Db;
  /** Commands (GET, PUBLISH). */
  redis: Redis;
  queue: RunQueue;
  channels: RedisChannels;
  /** The Docker engine: users' images are built and listed there (server/images). */
  docker: Docker;
  /** The lab's quotas; by default the web's environment's (quotas/service.ts quotasOf). */
  quotas?: TQuotas;
};

type State = Partial<Omit<Deps, "quotas">>;

function redis(url: string, options: RedisOptions): Redis {
  const client = new Redis(url, options);
  // ioredis reconnects by itself; without a listener every failed attempt is an unhandled error.
  client.on("error", (err: Error) => console.error(`redis: ${err.message}`));
  return client;
}

// Kept on globalThis so that dev-mode module reloads reuse the connections.
const state: State = ((globalThis as { __scalelab?: State }).__scalelab ??= {});

/** The process's connections, each created on first use (never on import). */
export const deps: Deps = {
  get db() {
    return (state.db ??= createDb(getEnv().DATABASE_URL, { max: 10 }));
  },
  get redis() {
    return (state.redis ??= redis(getEnv().REDIS_URL, { maxRetriesPerRequest: 2, connectTimeout: 5_000 }));
  },
  get queue() {
    // A producer fails fast while Redis is down instead of queueing the command (BullMQ's
    // "failing fast when Redis is down"); createRun then removes the run row it inserted.
    return (state.queue ??= new Queue<RunJobData>(RUN_QUEUE, {
      connection: redis(getEnv().REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 2 }),
    }));
  },
  get channels() {
    return (state.channels ??= new RedisChannels(redis(getEnv().REDIS_URL, { maxRetriesPerRequest: null })));
  },
  get docker() {
    return (state.docker ??= new Docker({ socketPath: getEnv().SCALELAB_DOCKER_SOCKET }));
  },
};
