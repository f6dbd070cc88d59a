import os from "node:os";
import { HOST_KEY } from "@scalelab/scenarios/messages";
import { ZHostFacts, type THostFacts } from "@scalelab/scenarios/contract";
import type { Redis } from "ioredis";

export type HostBounds = Pick<THostFacts, "cpus" | "memoryBytes"> & { source: "docker" | "web" };

/** The Docker host's facts as the worker recorded them, or this machine's when it has not yet. */
export async function readHostBounds(redis: Redis): Promise<HostBounds> {
  const raw = await redis.get(HOST_KEY).catch(() => null);
  if (raw) {
    try {
      const facts = ZHostFacts.safeParse(JSON.parse(raw));
      if (facts.success) return { cpus: facts.data.cpus, memoryBytes: facts.data.memoryBytes, source: "docker" };
    } catch {
      // fall through to this machine's facts
    }
  }
  return { cpus: os.cpus().length, memoryBytes: os.totalmem(), source: "web" };
}
