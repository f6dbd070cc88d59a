import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  checkEngineNodes,
  engineClientOptions,
  TLS_FILES,
  ZEngineConfig,
  type TEngineConfig,
  type TNodeEngineIdentity,
} from "@scalelab/scenarios/contract";
import Docker from "dockerode";

export type EngineAddArgs = {
  name: string | undefined;
  manager?: string | undefined;
  node?: string[] | undefined;
  "tls-dir"?: string | undefined;
  "registry-push"?: string | undefined;
  "registry-pull"?: string | undefined;
  machines?: string | undefined;
};

/**
 * `lab engine add`'s arguments as an engine's config, or the problems with them, each naming the
 * option and its rule: the contract's (ZEngineConfig) and what only the host can check (the TLS
 * directory exists and holds ca.pem, cert.pem and key.pem).
 */
export function engineFromArgs(a: EngineAddArgs): { ok: true; config: TEngineConfig } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const nodes: { name: string; endpoint: string }[] = [];
  for (const n of a.node ?? []) {
    const eq = n.indexOf("=");
    if (eq <= 0) errors.push(`--node ${n}: must be NAME=tcp://HOST:PORT (the node's hostname and its own engine)`);
    else nodes.push({ name: n.slice(0, eq), endpoint: n.slice(eq + 1) });
  }
  if (!a.manager) errors.push("--manager is required: a manager's engine, tcp://HOST:PORT");
  if ((a["registry-push"] === undefined) !== (a["registry-pull"] === undefined)) {
    errors.push("--registry-push and --registry-pull go together: where the lab pushes (HOST:PORT) and where the nodes pull (HOST:PORT)");
  }
  const tlsDir = a["tls-dir"] ?? null;
  if (tlsDir !== null && tlsDir.startsWith("/")) {
    if (!existsSync(tlsDir) || !statSync(tlsDir).isDirectory()) errors.push(`--tls-dir ${tlsDir}: no such directory`);
    else {
      const missing = TLS_FILES.filter((f) => !existsSync(join(tlsDir, f)));
      if (missing.length > 0) errors.push(`--tls-dir ${tlsDir}: must hold ${TLS_FILES.join(", ")} (missing ${missing.join(", ")})`);
    }
  }
  const parsed = ZEngineConfig.safeParse({
    name: a.name,
    kind: "swarm",
    manager: a.manager ?? "",
    nodes,
    tlsDir,
    registry:
      a["registry-push"] !== undefined && a["registry-pull"] !== undefined ? { push: a["registry-push"], pull: a["registry-pull"] } : null,
    ...(a.machines !== undefined && { machines: a.machines }),
  });
  if (!parsed.success) {
    const option: Record<string, string> = {
      name: "NAME",
      manager: "--manager",
      nodes: "--node",
      tlsDir: "--tls-dir",
      registry: "--registry",
      machines: "--machines",
    };
    for (const i of parsed.error.issues) {
      if (i.path[0] === "manager" && !a.manager) continue;
      const first = String(i.path[0] ?? "");
      const opt = first === "registry" ? `--registry-${String(i.path[1] ?? "push")}` : (option[first] ?? first);
      errors.push(`${opt}: ${i.message}`);
    }
  }
  return errors.length > 0 || !parsed.success ? { ok: false, errors } : { ok: true, config: parsed.data };
}

/** How long `lab engine add` waits for each engine it asks (the manager, then every node's at once). */
export const CHECK_TIMEOUT_MS = 3_000;

function engineClient(endpoint: string, tlsDir: string | null): Docker {
  return new Docker({ ...engineClientOptions(endpoint, tlsDir, readFileSync), timeout: CHECK_TIMEOUT_MS });
}

/** The answer, or a rejection when there is none in time (a socket timeout alone misses a connect that hangs). */
async function answer<T>(call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([call(), late]);
  } finally {
    clearTimeout(timer);
  }
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").trim().slice(0, 300);

/**
 * A config checked against its cluster before it is stored (checkEngineNodes says the rules): the
 * manager's nodes, and what each configured node's engine says it is. A manager that answers but
 * is no swarm manager is an error; one that does not answer leaves the config unchecked, with a
 * warning (a cluster may be registered before it is up).
 */
export async function checkEngine(config: TEngineConfig): Promise<{ errors: string[]; warnings: string[] }> {
  let swarm: { id: string; hostname: string }[];
  try {
    const nodes = (await answer(() => engineClient(config.manager, config.tlsDir).listNodes())) as {
      ID?: string;
      Description?: { Hostname?: string };
    }[];
    swarm = nodes.map((n) => ({ id: n.ID ?? "", hostname: n.Description?.Hostname ?? "" }));
  } catch (err) {
    // An HTTP answer (503 "This node is not a swarm manager"): the engine is there but is no manager.
    if ((err as { statusCode?: number }).statusCode !== undefined) {
      return { errors: [`--manager ${config.manager}: that engine cannot list a swarm's nodes: ${reason(err)}`], warnings: [] };
    }
    return {
      errors: [],
      warnings: [
        `not checked against the cluster: the manager ${config.manager} did not answer (${reason(err)}); saved as given, lab engine add again checks it`,
      ],
    };
  }
  const identities = new Map<string, TNodeEngineIdentity>(
    await Promise.all(
      config.nodes.map(async (n): Promise<[string, TNodeEngineIdentity]> => {
        try {
          const info = (await answer(() => engineClient(n.endpoint, config.tlsDir).info())) as {
            Name?: string;
            Swarm?: { NodeID?: string };
          };
          return [n.name, { nodeId: info.Swarm?.NodeID ?? "", name: info.Name ?? "" }];
        } catch (err) {
          return [n.name, { error: reason(err) }];
        }
      }),
    ),
  );
  return checkEngineNodes(config, swarm, identities);
}
