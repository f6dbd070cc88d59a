import type { Engine, Prisma, PrismaClient } from "./generated/client";

/**
 * Engines as stored (issue 18): a name, a kind and its config as JSON. The config's shape is
 * @scalelab/scenarios/contract ZEngineConfig: callers validate it before saving and parse it when
 * reading (this package knows no contract). Only the lab's host command writes here.
 */

/** Adds the engine, or replaces the one of that name. */
export async function saveEngine(db: PrismaClient, name: string, kind: string, config: Prisma.InputJsonValue): Promise<Engine> {
  return db.engine.upsert({
    where: { name },
    create: { name, kind, config },
    update: { kind, config },
  });
}

/** Whether there was one to remove. */
export async function removeEngine(db: PrismaClient, name: string): Promise<boolean> {
  const { count } = await db.engine.deleteMany({ where: { name } });
  return count > 0;
}

/** Every stored engine, by name. */
export async function listEngines(db: PrismaClient): Promise<Engine[]> {
  return db.engine.findMany({ orderBy: { name: "asc" } });
}

export async function findEngine(db: PrismaClient, name: string): Promise<Engine | null> {
  return db.engine.findUnique({ where: { name } });
}
