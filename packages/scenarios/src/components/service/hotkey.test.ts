import { HOT_KEY_KINDS, HotKeyKind } from "./config";
import { describe, expect, it } from "vitest";
import { hotKeyServer, PUMA_THREADS } from "./hotkey";
import { HOT_KEY, HOT_VALUE } from "../cache/config";
import { hotKeyStore } from "../cache/stores";

const KINDS = HOT_KEY_KINDS;
const file = (kind: HotKeyKind, suffix: string, workers = 1) => {
  const f = hotKeyServer(kind, { workers }).files.find((x) => x.path.endsWith(suffix));
  if (!f) throw new Error(`${kind} has no ${suffix}`);
  return f.content;
};

describe("HOT_VALUE", () => {
  it("is 100 bytes that need no quoting in any of the generated languages", () => {
    expect(HOT_VALUE).toHaveLength(100);
    expect(HOT_VALUE).toMatch(/^[a-z0-9-]+$/);
    expect(HOT_KEY).toMatch(/^[a-z]+$/);
  });
});

describe("hotKeyServer", () => {
  it.each(KINDS)("%s: absolute paths, ready on /health then /key", (kind) => {
    const s = hotKeyServer(kind, { workers: 2 });
    expect(s.files.length).toBeGreaterThan(0);
    for (const f of s.files) expect(f.path).toMatch(/^\/[a-z0-9/._-]+$/);
    expect(s.ready).toEqual([
      { kind: "http", port: 8080, path: "/health" },
      { kind: "http", port: 8080, path: "/key" },
    ]);
  });

  it("maps each kind onto its image and store", () => {
    const summary = Object.fromEntries(
      KINDS.map((k) => [k, [hotKeyServer(k, { workers: 1 }).image, hotKeyServer(k, { workers: 1 }).needs]]),
    );
    expect(summary).toEqual({
      nginx_static: ["hotkey-nginx", null],
      nginx_lua: ["hotkey-nginx", "redis"],
      rack: ["ruby", "redis"],
      rack_trivial: ["ruby", null],
      rails: ["ruby", "redis"],
      memcached: ["hotkey-nginx", "memcached"],
    });
  });

  it.each([0, -1, 1.5, 65, Number.NaN, "2" as unknown as number])("refuses workers %s", (workers) => {
    for (const kind of KINDS) expect(() => hotKeyServer(kind, { workers })).toThrow(/workers must be a whole number between 1 and 64/);
  });

  it("refuses an unknown kind", () => {
    expect(() => hotKeyServer("testbed" as HotKeyKind, { workers: 1 })).toThrow(/unknown hot-key server kind/);
  });
});

describe("nginx servers", () => {
  const NGINX: HotKeyKind[] = ["nginx_static", "nginx_lua", "memcached"];

  it.each(NGINX)("%s: worker_processes auto without a CPU limit", (kind) => {
    const conf = hotKeyServer(kind, { workers: "auto" }).files.find((f) => f.path.endsWith("nginx.conf"))!.content;
    expect(conf).toMatch(/^worker_processes auto;$/m);
  });

  it.each(NGINX)("%s: worker_processes from workers, X-Backend on every answer, /health, balanced braces", (kind) => {
    const conf = file(kind, "nginx.conf", 7);
    expect(conf).toMatch(/^worker_processes 7;$/m);
    expect(conf).toContain("listen 8080;");
    expect(conf).toContain("add_header X-Backend $hostname always;");
    expect(conf).toMatch(/location = \/health \{\n\s+return 200 "ok\\n";/);
    expect(conf).toContain("access_log off;");
    expect(conf.split("{").length).toBe(conf.split("}").length);
  });

  it("nginx_static serves the value from a file the run writes, with no store", () => {
    const s = hotKeyServer("nginx_static", { workers: 1 });
    expect(s.files).toContainEqual({ path: "/srv/hotkey/key", content: HOT_VALUE });
    expect(file("nginx_static", "nginx.conf")).toMatch(/location = \/key \{\n\s+root \/srv\/hotkey;\n\s+\}/);
    expect(file("nginx_static", "nginx.conf")).not.toMatch(/lua|memcached|resolver/);
  });

  it("nginx_lua loads the Lua module, resolves through Docker's DNS and pools Redis connections", () => {
    const conf = file("nginx_lua", "nginx.conf");
    expect(conf).toContain("load_module modules/ngx_http_lua_module.so;");
    expect(conf).toContain("resolver 127.0.0.11 ipv6=off;");
    expect(conf).toContain('require "nginx.redis"');
    expect(conf).toContain("red:set_timeout(1000)");
    expect(conf).toContain('red:connect("redis", 6379)');
    expect(conf).toContain(`red:get("${HOT_KEY}")`);
    expect(conf).toMatch(/red:set_keepalive\(10000, \d+\)/);
    // Back into the pool before the answer is written, and only after a successful read.
    expect(conf.indexOf("set_keepalive")).toBeGreaterThan(conf.indexOf("if not value"));
    expect(conf.indexOf("set_keepalive")).toBeLessThan(conf.indexOf("ngx.print(value)"));
  });

  it("memcached passes /key to a kept-alive memcached upstream", () => {
    const conf = file("memcached", "nginx.conf");
    expect(conf).toMatch(/upstream memcached \{\n\s+server memcached:11211;\n\s+keepalive \d+;\n\s+\}/);
    expect(conf).toContain(`set $memcached_key ${HOT_KEY};`);
    expect(conf).toContain("memcached_pass memcached;");
    expect(conf).not.toContain("lua");
  });
});

describe("Ruby servers", () => {
  const RUBY: HotKeyKind[] = ["rack", "rack_trivial", "rails"];

  it.each(RUBY)("%s: Puma in single mode for one worker", (kind) => {
    const puma = file(kind, "puma.rb", 1);
    expect(puma).toContain('environment "production"');
    expect(puma).toContain('bind "tcp://0.0.0.0:8080"');
    expect(puma).toContain('rackup "/srv/hotkey/config.ru"');
    expect(puma).toContain(`threads ${PUMA_THREADS}, ${PUMA_THREADS}`);
    expect(puma).not.toMatch(/workers|preload_app/);
  });

  it.each(RUBY)("%s: Puma forks one process per worker from a preloaded app", (kind) => {
    const puma = file(kind, "puma.rb", 3);
    expect(puma).toMatch(/^workers 3$/m);
    expect(puma).toMatch(/^preload_app!$/m);
  });

  it.each(RUBY)("%s: without a CPU limit, one Puma process per CPU the container sees", (kind) => {
    const puma = hotKeyServer(kind, { workers: "auto" }).files.find((f) => f.path.endsWith("puma.rb"))!.content;
    expect(puma).toContain("if Etc.nprocessors > 1\n  workers Etc.nprocessors\n  preload_app!\nend");
  });

  it.each(RUBY)("%s: X-Backend middleware wraps the app", (kind) => {
    const ru = file(kind, "config.ru");
    expect(ru).toContain("Socket.gethostname");
    expect(ru).toContain('headers["X-Backend"] = @host');
    expect(ru).toMatch(/^use XBackend$/m);
  });

  it.each(["rack", "rails"] as const)("%s: one Redis connection per Puma thread", (kind) => {
    const ru = file(kind, "config.ru");
    expect(ru).toContain(`ConnectionPool.new(size: ${PUMA_THREADS}, timeout: 5) { Redis.new(host: "redis", port: 6379, timeout: 1) }`);
    expect(ru).toContain(`REDIS.with { |r| r.get("${HOT_KEY}") }`);
  });

  it("rack_trivial answers the constant without Redis", () => {
    const ru = file("rack_trivial", "config.ru");
    expect(ru).toContain(`VALUE = "${HOT_VALUE}"`);
    expect(ru).not.toMatch(/redis/i);
  });

  it("rails is a production Rails application with its routes and no database", () => {
    const s = hotKeyServer("rails", { workers: 1 });
    expect(s.env).toEqual({ RAILS_ENV: "production" });
    const ru = file("rails", "config.ru");
    expect(ru).toContain('require "action_controller/railtie"');
    expect(ru).not.toMatch(/active_record|rails\/all/);
    expect(ru).toContain("class HotKeyApp < Rails::Application");
    expect(ru).toContain("config.eager_load = true");
    expect(ru).toContain("config.cache_classes = true");
    expect(ru).toContain('get "/key" => "hot_key#show"');
    expect(ru).toContain('get "/health" => "hot_key#health"');
    expect(ru).toContain("class HotKeyController < ActionController::Base");
    expect(ru).toContain("render plain: value");
    expect(ru.indexOf("Rails.application.initialize!")).toBeLessThan(ru.indexOf("run Rails.application"));
  });

  it.each(RUBY)("%s: every block is closed", (kind) => {
    const ru = file(kind, "config.ru");
    const opened = ru.match(/^\s*(class|def|case)\b|\bdo( \|[a-z]+\|)?$/gm) ?? [];
    expect(ru.match(/^\s*end\b/gm)).toHaveLength(opened.length);
  });
});

describe("hotKeyStore", () => {
  it("seeds Redis with an AOF holding one SET, loaded before Redis serves", () => {
    const s = hotKeyStore("redis");
    expect(s).toMatchObject({ image: "redis", hostname: "redis", port: 6379 });
    const aof = s.files[0]!;
    expect(aof.content).toBe(`*3\r\n$3\r\nSET\r\n$3\r\n${HOT_KEY}\r\n$100\r\n${HOT_VALUE}\r\n`);
    expect(aof.path).toBe("/var/lib/redis/seed.aof");
    const arg = (flag: string) => s.cmd[s.cmd.indexOf(flag) + 1];
    expect(arg("--appendonly")).toBe("yes");
    expect(arg("--appendfilename")).toBe("seed.aof");
    expect(arg("--dir")).toBe("/var/lib/redis");
    expect(arg("--save")).toBe("");
    expect(s.ready).toEqual([{ kind: "log", pattern: "Ready to accept connections" }]);
  });

  it("seeds memcached with a set command the entrypoint sends", () => {
    const s = hotKeyStore("memcached");
    expect(s).toMatchObject({ image: "memcached", hostname: "memcached", port: 11211 });
    expect(s.files).toEqual([{ path: "/etc/memcached/seed.txt", content: `set ${HOT_KEY} 0 0 100\r\n${HOT_VALUE}\r\nquit\r\n` }]);
    expect(s.ready).toEqual([{ kind: "log", pattern: "^memcached seeded$" }]);
  });

  it("covers every store a server needs", () => {
    for (const kind of KINDS) {
      const needs = hotKeyServer(kind, { workers: 1 }).needs;
      if (needs) expect(hotKeyStore(needs).hostname).toBe(needs);
    }
  });
});
