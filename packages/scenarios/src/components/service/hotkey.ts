import { APP_PORT, HEALTH_PATH } from "../../names";
import { PlannedFile, Probe } from "../types";
import { HotKeyKind } from "./config";
import { HOT_KEY, HOT_VALUE, HotKeyStoreKind, STORE_HOSTS, STORE_PORTS } from "../cache/config";
import { NGINX_CONF_PATH, nginxMain } from "../nginx/nginx-conf";

/**
 * Experiment 7, "what serves a hot key fastest": one value read from a store through servers with
 * more and more interpreted code on the hot path. Every generated file is built from the kind, the
 * constants below and a bounded worker count; nothing a user types reaches it.
 */

export const HOT_KEY_PATH = "/key";

/**
 * worker_processes of nginx, Puma's worker processes: derived by the caller from the CPU limit, or
 * "auto" without one (one per CPU the container sees).
 */
export const HOT_KEY_WORKERS = { min: 1, max: 64 } as const;
export type HotKeyWorkers = number | "auto";
/**
 * Puma's threads per process (min = max), Rails' generated puma.rb default: on MRI they overlap
 * Redis round trips but run Ruby one at a time, so more buy little. The Redis pool matches it.
 */
export const PUMA_THREADS = 5;

/** nginx_static serves this file, written by the run like the config. */
const STATIC_ROOT = "/srv/hotkey";
/** The ruby image's CMD is `puma -C <RUBY_DIR>/puma.rb`. */
const RUBY_DIR = "/srv/hotkey";
/** A server container as the plan needs it; hostname, aliases, CPU and memory come from the topology. */
export type HotKeyServer = {
  image: "hotkey-nginx" | "ruby";
  /** Absent: the image's CMD (nginx in the foreground; Puma with `<RUBY_DIR>/puma.rb`). */
  cmd?: string[];
  env: Record<string, string>;
  files: PlannedFile[];
  /** The store container the server reads from; it must be ready first. */
  needs: HotKeyStoreKind | null;
  /** GET /key last: a server that cannot reach its store is not ready. */
  ready: Probe[];
};

/** Which image serves each kind and which store it reads the key from. */
export const HOT_KEY_STACK: Readonly<Record<HotKeyKind, { image: HotKeyServer["image"]; needs: HotKeyStoreKind | null }>> = {
  nginx_static: { image: "hotkey-nginx", needs: null },
  nginx_lua: { image: "hotkey-nginx", needs: "redis" },
  memcached: { image: "hotkey-nginx", needs: "memcached" },
  rack: { image: "ruby", needs: "redis" },
  rack_trivial: { image: "ruby", needs: null },
  rails: { image: "ruby", needs: "redis" },
};

/**
 * The server for `kind` with `workers` nginx worker processes or Puma processes (Puma runs in
 * single mode for 1). The X-Backend header carries the container's own hostname, read at run
 * time ($hostname, Socket.gethostname), so no host name is written into the files.
 */
export function hotKeyServer(kind: HotKeyKind, { workers }: { workers: HotKeyWorkers }): HotKeyServer {
  const n = checkWorkers(workers);
  const ready: Probe[] = [
    { kind: "http", port: APP_PORT, path: HEALTH_PATH },
    { kind: "http", port: APP_PORT, path: HOT_KEY_PATH },
  ];
  if (!Object.hasOwn(HOT_KEY_STACK, kind)) throw new Error(`unknown hot-key server kind ${JSON.stringify(kind)}`);
  const { needs } = HOT_KEY_STACK[kind];
  const nginx = (files: PlannedFile[]): HotKeyServer => ({ image: "hotkey-nginx", env: {}, files, needs, ready });
  const ruby = (configRu: string, env: Record<string, string> = {}): HotKeyServer => ({
    image: "ruby",
    env,
    files: [
      { path: `${RUBY_DIR}/puma.rb`, content: renderPumaRb(n) },
      { path: `${RUBY_DIR}/config.ru`, content: configRu },
    ],
    needs,
    ready,
  });
  switch (kind) {
    case "nginx_static":
      return nginx([
        { path: NGINX_CONF_PATH, content: renderNginxConf(kind, n) },
        { path: `${STATIC_ROOT}${HOT_KEY_PATH}`, content: HOT_VALUE },
      ]);
    case "nginx_lua":
      return nginx([{ path: NGINX_CONF_PATH, content: renderNginxConf(kind, n) }]);
    case "memcached":
      return nginx([{ path: NGINX_CONF_PATH, content: renderNginxConf(kind, n) }]);
    case "rack":
      return ruby(renderRackRu(true));
    case "rack_trivial":
      return ruby(renderRackRu(false));
    case "rails":
      return ruby(renderRailsRu(), { RAILS_ENV: "production" });
    default:
      throw new Error(`unknown hot-key server kind ${JSON.stringify(kind)}`);
  }
}

function checkWorkers(workers: HotKeyWorkers): HotKeyWorkers {
  const { min, max } = HOT_KEY_WORKERS;
  if (workers === "auto") return workers;
  if (!Number.isInteger(workers) || workers < min || workers > max)
    throw new Error(`workers must be a whole number between ${min} and ${max}`);
  return workers;
}

/**
 * Idle store connections each nginx worker keeps (Lua's pool, the memcached upstream's keepalive).
 * Below the requests in flight, the surplus connections are closed and reopened: with 64, wrk's 200
 * connections made nginx open a memcached connection every 4–5 requests, at 1.3–2.2k req/s
 * instead of 19–33k (one CPU).
 */
const STORE_POOL = 1024;

const NGINX_KEY_LOCATION: Record<"nginx_static" | "nginx_lua" | "memcached", string[]> = {
  nginx_static: [`root ${STATIC_ROOT};`],
  nginx_lua: [
    "content_by_lua_block {",
    '  local redis = require "nginx.redis"',
    "  local red = redis:new()",
    "  red:set_timeout(1000)",
    `  local ok, err = red:connect("${STORE_HOSTS.redis}", ${STORE_PORTS.redis})`,
    "  if not ok then",
    '    ngx.log(ngx.ERR, "redis connect: ", err)',
    "    return ngx.exit(502)",
    "  end",
    `  local value, gerr = red:get("${HOT_KEY}")`,
    "  if not value then",
    '    ngx.log(ngx.ERR, "redis get: ", gerr)',
    "    return ngx.exit(502)",
    "  end",
    `  red:set_keepalive(10000, ${STORE_POOL})`,
    "  if value == ngx.null then",
    "    return ngx.exit(404)",
    "  end",
    "  ngx.print(value)",
    "}",
  ],
  memcached: [`set $memcached_key ${HOT_KEY};`, "memcached_pass memcached;"],
};

/**
 * nginx.conf of the three nginx servers: the same skeleton (access log off, as the Ruby servers log
 * no requests either), /health, and /key from a file, from Redis through Lua, or from memcached.
 */
function renderNginxConf(kind: "nginx_static" | "nginx_lua" | "memcached", workers: HotKeyWorkers): string {
  const indent = (lines: string[], by: string) => lines.map((l) => `${by}${l}`);
  return [
    `# Experiment 7, ${kind}.`,
    ...(kind === "nginx_lua" ? ["load_module modules/ndk_http_module.so;", "load_module modules/ngx_http_lua_module.so;"] : []),
    ...nginxMain(workers),
    "  sendfile on;",
    "  default_type text/plain;",
    "  log_not_found off;",
    ...(kind === "nginx_lua" ? ["  # Docker's DNS, for the redis container's name.", "  resolver 127.0.0.11 ipv6=off;"] : []),
    ...(kind === "memcached"
      ? ["  upstream memcached {", `    server ${STORE_HOSTS.memcached}:${STORE_PORTS.memcached};`, `    keepalive ${STORE_POOL};`, "  }"]
      : []),
    "",
    "  server {",
    `    listen ${APP_PORT};`,
    "    add_header X-Backend $hostname always;",
    `    location = ${HEALTH_PATH} {`,
    '      return 200 "ok\\n";',
    "    }",
    `    location = ${HOT_KEY_PATH} {`,
    ...indent(NGINX_KEY_LOCATION[kind], "      "),
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
}

function renderPumaRb(workers: HotKeyWorkers): string {
  return [
    "# Experiment 7: Puma for the Rack and Rails servers.",
    'environment "production"',
    `bind "tcp://0.0.0.0:${APP_PORT}"`,
    `rackup "${RUBY_DIR}/config.ru"`,
    `threads ${PUMA_THREADS}, ${PUMA_THREADS}`,
    ...pumaProcesses(workers),
    "",
  ].join("\n");
}

/**
 * MRI runs Ruby on one core per process: cluster mode forks one process per worker from the app
 * loaded once (shared copy-on-write; the Redis connections open lazily, in the workers).
 */
function pumaProcesses(workers: HotKeyWorkers): string[] {
  const cluster = (n: string) => [`workers ${n}`, "preload_app!"];
  if (workers === "auto") return ['require "etc"', "if Etc.nprocessors > 1", ...cluster("Etc.nprocessors").map((l) => `  ${l}`), "end"];
  return workers > 1 ? cluster(String(workers)) : [];
}

/** Rack middleware shared by the Ruby servers: X-Backend on every answer. */
const X_BACKEND_RB = [
  'require "socket"',
  "",
  "class XBackend",
  "  def initialize(app)",
  "    @app = app",
  "    @host = Socket.gethostname",
  "  end",
  "",
  "  def call(env)",
  "    status, headers, body = @app.call(env)",
  '    headers["X-Backend"] = @host',
  "    [status, headers, body]",
  "  end",
  "end",
];

/** One Redis connection per Puma thread, opened on first use. */
const REDIS_POOL_RB = `ConnectionPool.new(size: ${PUMA_THREADS}, timeout: 5) { Redis.new(host: "${STORE_HOSTS.redis}", port: ${STORE_PORTS.redis}, timeout: 1) }`;

/** A bare Rack app: /key from Redis (`withRedis`) or the constant value (rack_trivial). */
function renderRackRu(withRedis: boolean): string {
  return [
    `# Experiment 7, ${withRedis ? "rack: Rack on Puma reading the hot key from Redis" : "rack_trivial: Rack on Puma answering a constant"}.`,
    ...(withRedis ? ['require "redis"', 'require "connection_pool"'] : []),
    ...X_BACKEND_RB,
    "",
    ...(withRedis ? [`REDIS = ${REDIS_POOL_RB}`] : [`VALUE = "${HOT_VALUE}"`]),
    'TEXT = { "Content-Type" => "text/plain" }.freeze',
    "",
    "use XBackend",
    "run(lambda do |env|",
    '  case env["PATH_INFO"]',
    `  when "${HOT_KEY_PATH}"`,
    ...(withRedis
      ? [`    value = REDIS.with { |r| r.get("${HOT_KEY}") }`, '    value ? [200, TEXT.dup, [value]] : [404, TEXT.dup, ["no value\\n"]]']
      : ["    [200, TEXT.dup, [VALUE]]"]),
    `  when "${HEALTH_PATH}"`,
    '    [200, TEXT.dup, ["ok\\n"]]',
    "  else",
    '    [404, TEXT.dup, ["not found\\n"]]',
    "  end",
    "end)",
    "",
  ].join("\n");
}

/**
 * The smallest production Rails 6.1 app: one Rails::Application with two routes and a full
 * ActionController::Base controller, eager-loaded, no database, no assets, warnings-only log.
 */
function renderRailsRu(): string {
  return [
    "# Experiment 7, rails: a Rails 6.1 controller action reading the hot key from Redis.",
    'require "action_controller/railtie"',
    'require "redis"',
    'require "connection_pool"',
    ...X_BACKEND_RB,
    "",
    "class HotKeyApp < Rails::Application",
    "  config.load_defaults 6.1",
    `  config.root = "${RUBY_DIR}"`,
    "  config.eager_load = true",
    "  config.cache_classes = true",
    "  config.consider_all_requests_local = false",
    // Signs nothing the lab uses (no sessions), but production refuses to start a request without one.
    `  config.secret_key_base = "${"scalelab-hotkey-".repeat(8)}"`,
    // Per-request info lines would measure Docker's log pipe, which the other servers do not write to.
    "  config.logger = ActiveSupport::Logger.new($stdout)",
    "  config.log_level = :warn",
    "",
    "  routes.append do",
    `    get "${HOT_KEY_PATH}" => "hot_key#show"`,
    `    get "${HEALTH_PATH}" => "hot_key#health"`,
    "  end",
    "end",
    "",
    "class HotKeyController < ActionController::Base",
    `  REDIS = ${REDIS_POOL_RB}`,
    "",
    "  def show",
    `    value = REDIS.with { |r| r.get("${HOT_KEY}") }`,
    "    return head(:not_found) unless value",
    "",
    "    render plain: value",
    "  end",
    "",
    "  def health",
    '    render plain: "ok\\n"',
    "  end",
    "end",
    "",
    "Rails.application.initialize!",
    "use XBackend",
    "run Rails.application",
    "",
  ].join("\n");
}
