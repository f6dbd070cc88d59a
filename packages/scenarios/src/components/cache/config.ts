import { z } from "zod";
import { int, LIMITS, oneOf, strict } from "../../contract/fields";
/**
 * The hot key's store (experiment 7): which kinds there are, where they listen, and the key they
 * serve. The servers of ../service/hotkey.ts read it from here.
 */
export const HOT_KEY = "hot";
/** 100 bytes of [a-z0-9-]: safe unquoted in nginx, Lua, Ruby, RESP and memcached's protocol. */
export const HOT_VALUE = "scalelab-hot-value-".padEnd(100, "0123456789abcdef");
export type HotKeyStoreKind = "redis" | "memcached";
export const STORE_HOSTS: Record<HotKeyStoreKind, string> = { redis: "redis", memcached: "memcached" };
export const STORE_PORTS: Record<HotKeyStoreKind, number> = { redis: 6379, memcached: 11211 };

/** The cache a user's image can ask for (`topology.cache`): none, or one Redis node; its address comes in REDIS_URL. */
export const CACHE_KINDS = ["none", "redis"] as const;
export const ZCache = strict("cache", {
  kind: oneOf("cache.kind", CACHE_KINDS).default("none"),
  memoryMb: int("cache.memoryMb", LIMITS.storeMemoryMb).default(256),
});
export type TCache = z.infer<typeof ZCache>;
