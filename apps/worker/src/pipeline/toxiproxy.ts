import { toxicsFor, Toxic } from "@scalelab/scenarios/components";
import { TFault } from "@scalelab/scenarios/contract";
import { errorMessage } from "../log";

/**
 * The worker's client of toxiproxy's HTTP API on a network-fault proxy (the plan's
 * `faultProxies`; the toxics each fault means are in @scalelab/scenarios/components/fault-proxy).
 * The worker reaches the proxy container where the provisioner says:
 * `toxiproxyUrl(hostPort(await provisioner.dialAddress(id, network, apiPort)))`.
 */

/**
 * One call to toxiproxy's API. Adding or listing takes milliseconds; removing a toxic waits for
 * every connection to flush what it holds, 5 s per chunk that cannot be written (toxiproxy's own
 * bound), and holds new connections to that proxy meanwhile.
 */
export const TOXIPROXY_CALL_MS = 6_000;

export const toxiproxyUrl = (address: string) => `http://${address}`;

type NetworkFault = Pick<TFault, "action" | "ms" | "jitterMs" | "percent" | "kbps">;

/**
 * Puts the fault's toxics on every proxy of its target (all at once); `clear` removes them all
 * instead. Throws one error naming each proxy that refused and toxiproxy's answer.
 */
export async function applyNetworkFault(
  baseUrl: string,
  proxies: readonly string[],
  fault: NetworkFault,
  signal?: AbortSignal,
): Promise<void> {
  if (fault.action === "clear") return clearNetworkFaults(baseUrl, proxies, signal);
  const toxics = toxicsFor(fault);
  await all(
    proxies.flatMap((proxy) =>
      toxics.map(
        (toxic) => () =>
          call(baseUrl, "POST", `/proxies/${enc(proxy)}/toxics`, `adding the ${toxic.name} toxic to proxy ${proxy}`, signal, toxic),
      ),
    ),
  );
}

/** Removes every toxic of the proxies (what is already gone is fine). */
export async function clearNetworkFaults(baseUrl: string, proxies: readonly string[], signal?: AbortSignal): Promise<void> {
  await all(
    proxies.map((proxy) => async () => {
      const toxics = (await call(
        baseUrl,
        "GET",
        `/proxies/${enc(proxy)}/toxics`,
        `listing the toxics of proxy ${proxy}`,
        signal,
      )) as Toxic[];
      await all(
        toxics.map(
          (t) => () =>
            call(
              baseUrl,
              "DELETE",
              `/proxies/${enc(proxy)}/toxics/${enc(t.name)}`,
              `removing the ${t.name} toxic of proxy ${proxy}`,
              signal,
              undefined,
              [404],
            ),
        ),
      );
    }),
  );
}

/** The toxics on a proxy now, as toxiproxy lists them. */
export async function listToxics(baseUrl: string, proxy: string, signal?: AbortSignal): Promise<Toxic[]> {
  return (await call(baseUrl, "GET", `/proxies/${enc(proxy)}/toxics`, `listing the toxics of proxy ${proxy}`, signal)) as Toxic[];
}

const enc = encodeURIComponent;

/** Runs every task; when any failed, throws one error with every failure's message. */
async function all(tasks: (() => Promise<unknown>)[]): Promise<void> {
  const failed = (await Promise.allSettled(tasks.map((t) => t()))).filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed.length === 1) throw failed[0]!.reason;
  if (failed.length > 1) throw new Error(failed.map((r) => errorMessage(r.reason)).join("; "));
}

async function call(
  baseUrl: string,
  method: "GET" | "POST" | "DELETE",
  path: string,
  what: string,
  signal: AbortSignal | undefined,
  body?: unknown,
  tolerated: number[] = [],
): Promise<unknown> {
  const timeout = AbortSignal.timeout(TOXIPROXY_CALL_MS);
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${baseUrl}${path}`, {
      method,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    text = await res.text();
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) {
      // toxiproxy 2.5.0 answers a removal once every connection has flushed what the toxic holds
      // (5 s per chunk whose peer has gone); it goes on in the background.
      const why = method === "DELETE" ? " (connections still held data for the toxic; it is being removed in the background)" : "";
      throw new Error(`${what}: toxiproxy at ${baseUrl} did not answer within ${TOXIPROXY_CALL_MS / 1000} s${why}`);
    }
    throw new Error(`${what}: toxiproxy at ${baseUrl} could not be reached: ${errorMessage((err as Error).cause ?? err)}`);
  }
  if (tolerated.includes(res.status)) return undefined;
  if (!res.ok) throw new Error(`${what}: toxiproxy answered HTTP ${res.status} ${answer(text)}`);
  return text ? JSON.parse(text) : undefined;
}

/** toxiproxy's error body is `{"error": "...", "status": N}`. */
function answer(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
  } catch {
    // not JSON: shown as it is
  }
  return text.trim().slice(0, 300);
}
