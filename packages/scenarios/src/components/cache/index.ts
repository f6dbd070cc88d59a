import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { CACHE_ROLE, SERVICE_ROLE } from "../../names";
import { HOT_KEY_STACK } from "../service/hotkey";
import { HOT_KEY, HotKeyStoreKind, STORE_HOSTS, STORE_PORTS, TCache } from "./config";
import { hotKeyStore } from "./stores";
import { ComponentModule } from "../types";
import { unless, when } from "../form";

/**
 * The store the hot key is read from, if the run has one: what experiment 7's server needs (Redis,
 * memcached or nothing), or Redis for the testbed's own `key` endpoint.
 */
export function cacheKind(run: TRunCreate): HotKeyStoreKind | null {
  const kind = run.topology.service.kind;
  if (kind === "testbed") return run.workload.endpoint === "key" ? "redis" : null;
  if (kind === "image") return run.topology.cache?.kind === "redis" ? "redis" : null;
  return HOT_KEY_STACK[kind].needs;
}

/** The testbed's environment for its `key` endpoint. */
export function cacheEnv(run: TRunCreate): Record<string, string> {
  if (run.topology.service.kind !== "testbed" || cacheKind(run) !== "redis") return {};
  return { TESTBED_REDIS_ADDR: `${STORE_HOSTS.redis}:${STORE_PORTS.redis}`, TESTBED_REDIS_KEY: HOT_KEY };
}

/** The cache a user's image asked for (topology.cache), with its defaults. */
const imageCache = ({ topology: t }: Pick<TRunCreate, "topology">): TCache | undefined =>
  t.service.kind === "image" && t.cache?.kind === "redis" ? t.cache : undefined;

/** What a user's service gets to reach its Redis. */
export function cacheServiceEnv(run: Pick<TRunCreate, "topology">): Record<string, string> {
  if (!imageCache(run)) return {};
  const [host, port] = [STORE_HOSTS.redis, STORE_PORTS.redis];
  return { REDIS_URL: `redis://${host}:${port}`, REDIS_HOST: host, REDIS_PORT: String(port) };
}

/** Of a cache's memory, what Redis may fill before it evicts (the rest is its own overhead). */
const REDIS_DATA_SHARE = 0.75;

/**
 * The hot key's store, seeded before it reports ready and started before the servers that read it;
 * or a user's image's Redis (topology.cache), within its memory, evicting the least recently used
 * keys when full, as a cache does.
 */
export const cache: ComponentModule = {
  kind: "cache",
  slot: "cache",
  roles: (run) => {
    const own = imageCache(run);
    if (own) return [{ role: CACHE_ROLE, count: 1, incoming: true, path: "topology.cache", memoryMb: own.memoryMb }];
    return cacheKind(run) ? [{ role: CACHE_ROLE, count: 1, incoming: true, path: "topology.service" }] : [];
  },
  presentation: { [CACHE_ROLE]: { one: "cache", many: "caches", column: 3, row: 3, color: "#c92a2a", label: "title" } },
  edges: [{ from: SERVICE_ROLE, to: CACHE_ROLE, kind: "query" }],
  clientEnv: cacheEnv,
  setup: [
    {
      key: "cache",
      label: "Cache",
      show: ({ topology: t }) =>
        t.service.kind !== "image" ? "— (the server's own)" : t.cache?.kind === "redis" ? `redis, ${t.cache.memoryMb} MB (LRU)` : "none",
    },
  ],
  serviceEnv: cacheServiceEnv,
  images: (run) => {
    const kind = cacheKind(run);
    return kind ? [hotKeyStore(kind).image] : [];
  },
  plan: ({ run, container }) => {
    const kind = cacheKind(run);
    if (!kind) return [];
    const store = hotKeyStore(kind);
    const own = imageCache(run);
    const limits = own && {
      memoryMb: own.memoryMb,
      cmd: [...store.cmd, "--maxmemory", `${Math.floor(own.memoryMb * REDIS_DATA_SHARE)}mb`, "--maxmemory-policy", "allkeys-lru"],
    };
    return [
      container({
        index: 0,
        role: CACHE_ROLE,
        component: kind,
        title: kind === "redis" ? "Redis" : "memcached",
        image: store.image,
        hostname: store.hostname,
        cmd: store.cmd,
        ...limits,
        files: store.files,
        ports: [STORE_PORTS[kind]],
        tier: 0,
        ready: store.ready,
      }),
    ];
  },
  form: {
    sections: [
      {
        key: "cache",
        order: 60,
        title: "Cache",
        hint: "A Redis node beside your image (the testbed and experiment 7's servers bring their own).",
        when: when("topology.service.kind", "image"),
        object: "topology.cache",
        fields: [
          {
            path: "topology.cache.kind",
            label: "Kind",
            wide: true,
            options: { none: "none", redis: "Redis — its address comes in REDIS_URL" },
          },
          { path: "topology.cache.memoryMb", label: "Memory (MB)", when: unless("topology.cache.kind", "none") },
        ],
      },
    ],
  },
};
