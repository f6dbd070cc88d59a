import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { TLS_FILES, ZEngineConfig, type TEngineConfig } from "@scalelab/scenarios/contract";

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
