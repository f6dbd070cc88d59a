import { PlannedFile, Probe } from "../types";
import { HOT_KEY, HOT_VALUE, HotKeyStoreKind, STORE_HOSTS, STORE_PORTS } from "./config";

const REDIS_AOF_DIR = "/var/lib/redis";
const REDIS_AOF = "seed.aof";
const MEMCACHED_SEED = "/etc/memcached/seed.txt";

/** The store container, seeded by a file it loads at start (no exec into it). */
export type HotKeyStore = {
  image: "redis" | "memcached";
  hostname: string;
  port: number;
  cmd: string[];
  files: PlannedFile[];
  /** Passes only once the key is in the store. */
  ready: Probe[];
};

/**
 * The store with HOT_KEY = HOT_VALUE in it before anything reads it.
 * - redis (the lab's redis image): started with append-only persistence on an AOF file the run
 *   writes (one SET in RESP). Redis 7 adopts a lone AOF as the base of its multi-part AOF and loads
 *   it before it serves, so "Ready to accept connections" means seeded. Only reads follow: the
 *   AOF costs nothing during the load.
 * - memcached (keeps nothing across starts): the image's entrypoint sends the run's seed file in
 *   memcached's text protocol once the server listens and prints "memcached seeded".
 */
export function hotKeyStore(kind: HotKeyStoreKind): HotKeyStore {
  const base = { hostname: STORE_HOSTS[kind], port: STORE_PORTS[kind] };
  switch (kind) {
    case "redis":
      return {
        ...base,
        image: "redis",
        cmd: [
          "redis-server",
          "--bind",
          "0.0.0.0",
          "--protected-mode",
          "no",
          "--save",
          "",
          "--dir",
          REDIS_AOF_DIR,
          "--appendonly",
          "yes",
          "--appendfilename",
          REDIS_AOF,
          "--appendfsync",
          "no",
        ],
        files: [{ path: `${REDIS_AOF_DIR}/${REDIS_AOF}`, content: resp(["SET", HOT_KEY, HOT_VALUE]) }],
        ready: [{ kind: "log", pattern: "Ready to accept connections" }],
      };
    case "memcached":
      return {
        ...base,
        image: "memcached",
        cmd: ["-m", "64", "-c", "4096"],
        files: [{ path: MEMCACHED_SEED, content: `set ${HOT_KEY} 0 0 ${HOT_VALUE.length}\r\n${HOT_VALUE}\r\nquit\r\n` }],
        ready: [{ kind: "log", pattern: "^memcached seeded$" }],
      };
    default:
      throw new Error(`unknown hot-key store ${JSON.stringify(kind)}`);
  }
}

/** A Redis command in RESP, the format of an AOF. */
const resp = (args: string[]) => `*${args.length}\r\n${args.map((a) => `$${a.length}\r\n${a}\r\n`).join("")}`;
