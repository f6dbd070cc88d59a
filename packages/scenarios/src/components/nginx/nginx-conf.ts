import { APP_PORT, GRPC_PORT, LB_PORT } from "../../names";
import { UPSTREAM_HEADER } from "../../contract/backends";
import { NginxAlgorithm } from "./config";

export const NGINX_CONF_PATH = "/etc/nginx/nginx.conf";

export type NginxConfInput = {
  algorithm: NginxAlgorithm;
  /** Host names of the replicas on the run network (network aliases), e.g. `app-0`. */
  upstreams: readonly string[];
  /** Passive health checks: `max_fails` (0 = never skipped), `fail_timeout`; defaults 1 and 10 s. */
  maxFails?: number;
  failTimeoutSeconds?: number;
  /** `proxy_next_upstream error timeout` (true, the default) or `off`; `grpc_next_upstream` for gRPC. */
  retryNextUpstream?: boolean;
  /** http (the default): HTTP/1.1 to the replicas' HTTP port; grpc: HTTP/2 both sides, to their gRPC port. */
  protocol?: "http" | "grpc";
  /** The replicas' HTTP port (servicePort: a user's image's own); 8080 when absent. */
  port?: number;
};

/**
 * The start of every nginx.conf the lab writes, up to the open `http {`: worker processes, file and
 * connection limits sized for thousands of connections, errors to stderr, no access log (a log
 * line per request would measure the log).
 */
export function nginxMain(workers: number | "auto"): string[] {
  return [
    `worker_processes ${workers};`,
    "worker_rlimit_nofile 16384;",
    "error_log stderr warn;",
    "",
    "events {",
    "  worker_connections 8192;",
    "}",
    "",
    "http {",
    "  access_log off;",
  ];
}

/** A replica (`app-2`) or the network-fault proxy in front of it (`proxy-app-2`). */
const UPSTREAM_HOST = /^(proxy-)?app-\d{1,2}$/;

const ALGORITHM_DIRECTIVE: Record<NginxAlgorithm, string | undefined> = {
  round_robin: undefined,
  least_conn: "least_conn;",
  // ip_hash keys on the client's address: one load-generator container lands on one replica.
  ip_hash: "ip_hash;",
  // Keyed on a per-request id, so one client still spreads over the replicas.
  hash: "hash $request_id;",
  random: "random two least_conn;",
};

/** A number written into a config: a whole number in range, or an error naming it (the schema checked it already; this guards the renderer). */
export const boundedInt = (name: string, n: number, min: number, max: number) => {
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number between ${min} and ${max}`);
  return n;
};

/**
 * nginx.conf for the balancer. Every directive that changes what the experiment measures is
 * written out even where it equals nginx's default, so the config is the documentation.
 */
export function renderNginxConf({
  algorithm,
  upstreams,
  maxFails = 1,
  failTimeoutSeconds = 10,
  retryNextUpstream = true,
  protocol = "http",
  port = APP_PORT,
}: NginxConfInput): string {
  if (upstreams.length === 0) throw new Error("nginx needs at least one upstream");
  for (const host of upstreams) {
    if (!UPSTREAM_HOST.test(host)) throw new Error(`invalid upstream host name: ${JSON.stringify(host)}`);
  }
  if (!Object.hasOwn(ALGORITHM_DIRECTIVE, algorithm)) throw new Error(`unknown nginx algorithm ${JSON.stringify(algorithm)}`);
  const algo = ALGORITHM_DIRECTIVE[algorithm];
  const fails = boundedInt("maxFails", maxFails, 0, 100);
  const timeout = boundedInt("failTimeoutSeconds", failTimeoutSeconds, 1, 3600);
  if (protocol !== "http" && protocol !== "grpc") throw new Error(`unknown protocol ${JSON.stringify(protocol)}`);
  const grpc = protocol === "grpc";
  const httpPort = boundedInt("port", port, 1, 65535);
  const next = retryNextUpstream ? "error timeout" : "off";
  return [
    ...nginxMain("auto"),
    "",
    // The replica that answered, for UPSTREAM_HEADER: the last address nginx tried ($upstream_addr
    // lists each), unless that one sent no response header ($upstream_header_time "-": refused,
    // reset, timed out, or no live upstream), when nginx answers itself and the header is left out.
    '  map "$upstream_header_time/$upstream_addr" $scalelab_upstream {',
    '    "~-/" "";',
    "    default $upstream_addr;",
    "  }",
    "",
    "  upstream app {",
    ...(algo ? [`    ${algo}`] : []),
    ...upstreams.map((host) => `    server ${host}:${grpc ? GRPC_PORT : httpPort} max_fails=${fails} fail_timeout=${timeout}s;`),
    "    keepalive 64;",
    "  }",
    "",
    "  server {",
    // gRPC: plaintext HTTP/2 with prior knowledge, as gRPC clients and the testbed speak it without
    // TLS; grpc_pass always speaks HTTP/2, so upstream keepalive needs no headers.
    grpc ? `    listen ${LB_PORT} http2;` : `    listen ${LB_PORT};`,
    "    location / {",
    ...(grpc
      ? ["      grpc_pass grpc://app;", `      grpc_next_upstream ${next};`]
      : [
          "      proxy_pass http://app;",
          "      proxy_http_version 1.1;",
          '      proxy_set_header Connection "";',
          `      proxy_next_upstream ${next};`,
        ]),
    "      add_header X-Upstream $upstream_addr always;",
    `      add_header ${UPSTREAM_HEADER} $scalelab_upstream always;`,
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
}
