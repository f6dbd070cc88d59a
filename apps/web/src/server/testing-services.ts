import { randomUUID } from "node:crypto";
import { createDb } from "@scalelab/db";
import { Queue } from "bullmq";
import Docker from "dockerode";
import { Redis } from "ioredis";
import { expect } from "vitest";
import { getEnv } from "~/env";
import { RedisChannels } from "./channels";
import type { Deps } from "./runtime";

/**
 * Real Postgres and Redis for the web's integration tests (DATABASE_URL, REDIS_URL: getEnv throws
 * when they are not set, and this fails loudly when they do not answer), with a queue of its own so
 * that no worker takes the jobs these tests queue.
 */
export async function openServiceDeps(): Promise<{ deps: Deps; close(): Promise<void> }> {
  const env = getEnv();
  const deps: Deps = {
    db: createDb(env.DATABASE_URL),
    redis: new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1 }),
    queue: new Queue(`scalelab-runs-test-${randomUUID().slice(0, 8)}`, {
      connection: new Redis(env.REDIS_URL, { maxRetriesPerRequest: null }),
    }),
    channels: new RedisChannels(new Redis(env.REDIS_URL, { maxRetriesPerRequest: null })),
    docker: new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET }),
  };
  await deps.db.$queryRaw`SELECT 1`;
  expect(await deps.redis.ping()).toBe("PONG");
  return {
    deps,
    async close() {
      await deps.queue.obliterate({ force: true });
      await deps.queue.close();
      await deps.db.$disconnect();
      deps.redis.disconnect();
    },
  };
}
