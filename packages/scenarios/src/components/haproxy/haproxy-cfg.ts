import { APP_PORT, GRPC_PORT, HEALTH_PATH, LB_PORT, SERVICE_ALIAS } from "../../names";
import { UPSTREAM_HEADER } from "../../contract/backends";
import { URL_PATH_PATTERN } from "../../contract/fields";
import { HAPROXY_ALGORITHMS, HaproxyAlgorithm } from "./config";
import { boundedInt } from "../nginx/nginx-conf";

export const HAPROXY_CFG_PATH = "/etc/haproxy/haproxy.cfg";
/** HAProxy's own statistics (`/stats`, CSV with `/stats;csv`), on a port of their own so `/stats` of the load path stays the testbed's. */
export const HAPROXY_STATS_PORT = 8404;
export const HAPROXY_STATS_PATH = "/stats";

export type HaproxyCfgInput = {
  algorithm: HaproxyAlgorithm;
  /** Server slots of the `server-template`: one per service replica. */
  replicas: number;
  maxFails?: number;
  failTimeoutSeconds?: number;
  retryNextUpstream?: boolean;
  /** http (the default): HTTP/1.1 to the replicas' HTTP port; grpc: HTTP/2 both sides, to their gRPC port. */
  protocol?: "http" | "grpc";
  /** The replicas' HTTP port and health path (servicePort, serviceHealthPath: a user's image's own); 8080 and /health when absent. */
  port?: number;
  healthPath?: string;
};

/**
 * A health path as a word of haproxy.cfg: the schema's URL characters, with the two HAProxy would
 * read (`'` opens a quoted string, `$` names an environment variable) percent-escaped.
 */
export function haproxyPath(path: string): string {
  if (!URL_PATH_PATTERN.test(path)) throw new Error(`invalid health path ${JSON.stringify(path)}`);
  return path.replace(/'/g, "%27").replace(/\$/g, "%24");
}

/**
 * haproxy.cfg for the balancer. `balance` is always written (HAProxy's default would be
 * roundrobin silently). The passive health knobs keep nginx's names; in HAProxy they become:
 * - maxFails N > 0: `observe layer4 error-limit N on-error mark-down` (N connection errors of real
 *   traffic in a row take the server out, like nginx's max_fails) and `fall N` for the active check;
 *   maxFails 0 (nginx: never marked unavailable): no `observe`, and the active check cannot take a
 *   server out either (`fall` at its maximum).
 * - failTimeoutSeconds T: `downinter Ts`, how long a server marked down waits for its next check
 *   (nginx's fail_timeout: how long a failed server is skipped). The active check itself runs
 *   every second (`inter 1s`, `rise 1`) on GET /health.
 * - retryNextUpstream true (nginx's `proxy_next_upstream error timeout`): `retries 2` +
 *   `option redispatch 1` (a failed connection attempt is retried on another server; HAProxy's
 *   default `retry-on conn-failure` is the equivalent of nginx's `error`); false: `retries 0`,
 *   `no option redispatch` (the client sees the failure).
 * - protocol grpc: plaintext HTTP/2 with prior knowledge on the load frontend and to the replicas'
 *   gRPC port (`proto h2`), each call balanced on its own. The active check cannot GET /health on
 *   a gRPC port, so it goes to the replicas' HTTP port in HTTP/1.1, set in the check's own
 *   `http-check connect`: as server options (`check port 8080 check-proto h1`), HAProxy 2.6 checks
 *   only the first slot of a server-template; the slots filled from DNS fail theirs (SOCKERR).
 * X-Backend (x-backend metadata for gRPC) from the replicas passes through untouched. Every
 * response of a server carries UPSTREAM_HEADER with the server's address, `[%si]:%sp` (brackets so
 * an IPv6 address reads unambiguously; the worker maps it to the replica): server-template's names
 * (app1, app2...) follow DNS answers, not replicas. HAProxy's own answers (503 with no server up,
 * 502, 504) go through no http-response rule, so they carry none, as nginx's.
 */
export function renderHaproxyCfg({
  algorithm,
  replicas,
  maxFails = 1,
  failTimeoutSeconds = 10,
  retryNextUpstream = true,
  protocol = "http",
  port = APP_PORT,
  healthPath = HEALTH_PATH,
}: HaproxyCfgInput): string {
  if (!(HAPROXY_ALGORITHMS as readonly string[]).includes(algorithm))
    throw new Error(`unknown haproxy algorithm ${JSON.stringify(algorithm)}`);
  const slots = boundedInt("replicas", replicas, 1, 64);
  const fails = boundedInt("maxFails", maxFails, 0, 100);
  const timeout = boundedInt("failTimeoutSeconds", failTimeoutSeconds, 1, 3600);
  if (protocol !== "http" && protocol !== "grpc") throw new Error(`unknown protocol ${JSON.stringify(protocol)}`);
  const grpc = protocol === "grpc";
  const httpPort = boundedInt("port", port, 1, 65535);
  const health = haproxyPath(healthPath);
  const check = [
    "inter 1s",
    `downinter ${timeout}s`,
    "rise 1",
    fails > 0 ? `fall ${fails}` : "fall 1000000",
    ...(fails > 0 ? [`observe layer4 error-limit ${fails} on-error mark-down`] : []),
  ].join(" ");
  return [
    "global",
    // Needs about 2 file descriptors per connection; the containers' limit here is 20000.
    "  maxconn 8192",
    "  log stderr format raw local0 warning",
    "",
    "defaults",
    "  mode http",
    "  log global",
    "  option http-keep-alive",
    "  timeout connect 5s",
    "  timeout client 60s",
    "  timeout server 60s",
    ...(retryNextUpstream ? ["  retries 2", "  option redispatch 1"] : ["  retries 0", "  no option redispatch"]),
    "",
    "resolvers docker",
    "  nameserver dns 127.0.0.11:53",
    "  accepted_payload_size 8192",
    "  resolve_retries 3",
    "  timeout resolve 1s",
    "  timeout retry 1s",
    "  hold valid 5s",
    "  hold obsolete 5s",
    "",
    "frontend stats",
    `  bind :${HAPROXY_STATS_PORT}`,
    "  stats enable",
    `  stats uri ${HAPROXY_STATS_PATH}`,
    "",
    "frontend load",
    grpc ? `  bind :${LB_PORT} proto h2` : `  bind :${LB_PORT}`,
    "  default_backend app",
    "",
    "backend app",
    `  balance ${algorithm}`,
    ...(grpc
      ? ["  option httpchk", `  http-check connect port ${httpPort} proto h1`, `  http-check send meth GET uri ${health}`]
      : [`  option httpchk GET ${health}`]),
    // Ready is any 2xx, as the lab's own probe takes it.
    "  http-check expect status 200-299",
    `  http-response set-header ${UPSTREAM_HEADER} [%si]:%sp`,
    `  default-server ${check}`,
    grpc
      ? `  server-template app ${slots} ${SERVICE_ALIAS}:${GRPC_PORT} proto h2 check resolvers docker init-addr libc,none`
      : `  server-template app ${slots} ${SERVICE_ALIAS}:${httpPort} check resolvers docker init-addr libc,none`,
    "",
  ].join("\n");
}
