import type { TBalancer } from "./schemas";

export const APP_PORT = 8080;
export const LB_PORT = 8080;
export const NGINX_CONF_PATH = "/etc/nginx/nginx.conf";

export type NginxConfInput = {
  algorithm: TBalancer["algorithm"];
  /** Host names of the replicas on the run network (network aliases), e.g. `app-0`. */
  upstreams: readonly string[];
};

const UPSTREAM_HOST = /^app-\d{1,2}$/;

const ALGORITHM_DIRECTIVE: Record<TBalancer["algorithm"], string | undefined> = {
  round_robin: undefined,
  least_conn: "least_conn;",
};

/**
 * nginx.conf for the balancer. Every directive that changes what the experiment measures is
 * written out even where it equals nginx's default, so the config is the documentation.
 */
export function renderNginxConf({ algorithm, upstreams }: NginxConfInput): string {
  if (upstreams.length === 0) throw new Error("nginx needs at least one upstream");
  for (const host of upstreams) {
    if (!UPSTREAM_HOST.test(host)) throw new Error(`invalid upstream host name: ${JSON.stringify(host)}`);
  }
  const algo = ALGORITHM_DIRECTIVE[algorithm];
  return [
    "worker_processes auto;",
    "worker_rlimit_nofile 16384;",
    "error_log stderr warn;",
    "",
    "events {",
    "  worker_connections 8192;",
    "}",
    "",
    "http {",
    "  access_log off;",
    "",
    "  upstream app {",
    ...(algo ? [`    ${algo}`] : []),
    ...upstreams.map((host) => `    server ${host}:${APP_PORT} max_fails=1 fail_timeout=10s;`),
    "    keepalive 64;",
    "  }",
    "",
    "  server {",
    `    listen ${LB_PORT};`,
    "    location / {",
    "      proxy_pass http://app;",
    "      proxy_http_version 1.1;",
    '      proxy_set_header Connection "";',
    "      proxy_next_upstream error timeout;",
    "      add_header X-Upstream $upstream_addr always;",
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
}
