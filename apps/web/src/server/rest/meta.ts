import type { AnyProcedure } from "@trpc/server";
import { appRouter } from "../routers/_app";
import type { Meta } from "../trpc";

// `_def.procedures` is the flat record of every procedure by dotted path (what trpc-to-openapi walks too).
const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure | undefined>;

export function procedureMeta(path: string): Meta | undefined {
  return procedures[path]?._def.meta as Meta | undefined;
}

export function procedurePaths(): string[] {
  return Object.keys(procedures);
}
