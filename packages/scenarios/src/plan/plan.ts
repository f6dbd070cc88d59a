import { TRunDefinition as TRunCreate } from "../contract/definition";
import { BALANCER_ROLE, GRPC_PORT, LABELS, LB_PORT, RUN_ID_PATTERN, SERVICE_ROLE } from "../names";
import { servicePort } from "../components/service/config";
import { backendSource, BackendSource } from "../contract/backends";
import { planLoadgens, planScriptCheck } from "../loadgen/component";
import { clientEnv, COMPONENTS, serviceEnv } from "../components/registry";
import { faultProxyImages, planFaultProxies, FaultProxy } from "../components/fault-proxy";
import { planNetnsHolders } from "../components/netns";
import { ContainerSpec, LabImage, PlanContext, PlannedContainer } from "../components/types";

export { LAB_IMAGES, UNTRUSTED, type LabImage, type PlannedContainer, type PlannedFile, type Probe } from "../components/types";
export { NGINX_CONF_PATH } from "../components/nginx/nginx-conf";
export { HAPROXY_CFG_PATH } from "../components/haproxy/haproxy-cfg";
export { K6_SCRIPT_PATH, WRK_SCRIPT_PATH } from "../loadgen/component";
export { TOXIPROXY_CONFIG_PATH, type FaultProxy } from "../components/fault-proxy";

export function assertRunId(runId: string): void {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new Error(`invalid run id ${JSON.stringify(runId)}: expected 8–64 lowercase letters, digits or inner hyphens`);
  }
}

export type RunPlan = {
  runId: string;
  network: { name: string; labels: Record<string, string> };
  /** The topology's containers, in start order (tier by tier). */
  containers: PlannedContainer[];
  /** The load generators (one per instance), started by the load step once the topology is ready. */
  loadgens: PlannedContainer[];
  /** workload.script: k6 inspect of the script, run without a network before the topology starts. */
  scriptCheck?: PlannedContainer;
  /** The X-Backend values the service replicas answer with (their host names): what the per-backend counts are named by. */
  backends: string[];
  /**
   * Where the load generators learn which replica answered (../contract/backends.ts): an address
   * (`balancer`, `address`) is mapped to the replica's name by the worker; `unknown`: nothing says.
   */
  backendSource: BackendSource;
  /**
   * Where the warm-up goes (the first container of the role): the balancer, or without one the
   * first replica (the load generator then goes to the service's shared alias).
   */
  entry: { role: string; port: number; protocol: TRunCreate["workload"]["protocol"] };
  /**
   * The network-fault proxies (toxiproxy), one in front of each target of the run's network faults
   * (./components/fault-proxy.ts); empty when the run has none.
   */
  faultProxies: FaultProxy[];
};

export type PlanInput = {
  runId: string;
  instance?: string;
  run: TRunCreate;
  images: Partial<Record<LabImage, string>>;
};

const MB = 1024 * 1024;

/** Labels of every object of the run; `instance` is added when the plan has one. */
export function runLabels(runId: string, instance?: string): Record<string, string> {
  return { [LABELS.managed]: "true", [LABELS.run]: runId, ...(instance && { [LABELS.instance]: instance }) };
}

/** The images the run needs, for building only what it uses (Kafka and Cassandra are big). */
export function requiredImages(run: TRunCreate): LabImage[] {
  return [...new Set([...COMPONENTS.flatMap((c) => c.images(run)), ...faultProxyImages(run)])];
}

export function buildPlan({ runId, instance, run, images }: PlanInput): RunPlan {
  assertRunId(runId);
  if (instance !== undefined && !/^[a-z0-9-]{1,64}$/.test(instance)) throw new Error(`invalid instance id ${JSON.stringify(instance)}`);
  const ctx = planContext(runId, instance, run, images);
  const { containers: proxied, faultProxies } = planFaultProxies(
    ctx,
    COMPONENTS.flatMap((c) => c.plan(ctx)),
  );
  const containers = planNetnsHolders(run, proxied, images[run.workload.loadgen]).sort((a, b) => a.tier - b.tier);
  const backends = containers.filter((c) => c.role === SERVICE_ROLE).map((c) => c.hostname);
  const loadgens = planLoadgens(ctx);
  return {
    runId,
    network: { name: `sl-run-${runId}`, labels: runLabels(runId, instance) },
    containers,
    loadgens,
    ...(run.workload.script !== undefined && { scriptCheck: planScriptCheck(loadgens[0]!) }),
    backends,
    backendSource: backendSource(run),
    entry: {
      ...(run.topology.balancer.kind === "none"
        ? { role: SERVICE_ROLE, port: run.workload.protocol === "grpc" ? GRPC_PORT : servicePort(run.topology.service) }
        : { role: BALANCER_ROLE, port: LB_PORT }),
      protocol: run.workload.protocol,
    },
    faultProxies,
  };
}

function planContext(runId: string, instance: string | undefined, run: TRunCreate, images: Partial<Record<LabImage, string>>): PlanContext {
  const short = runId.slice(0, 8);
  return {
    run,
    images,
    clientEnv: (...slots) => clientEnv(run, slots),
    serviceEnv: () => serviceEnv(run),
    container: ({ index, image, aliases, files, env, memoryMb, ...spec }: ContainerSpec): PlannedContainer => {
      const tag = typeof image === "string" ? images[image] : image.user;
      if (!tag) throw new Error(`no image given for ${String(image)}`);
      return {
        ...spec,
        name: `sl-${short}-${spec.role}-${index}`,
        image: tag,
        aliases: aliases ?? [spec.hostname],
        env: env ?? {},
        files: files ?? [],
        labels: { ...runLabels(runId, instance), [LABELS.role]: spec.role },
        ...(spec.cpus !== undefined && { nanoCpus: Math.round(spec.cpus * 1e9) }),
        ...(memoryMb !== undefined && { memoryBytes: memoryMb * MB }),
      };
    },
  };
}

/** The containers of a tier, in plan order. */
export const tiers = (plan: RunPlan): PlannedContainer[][] => {
  const byTier = new Map<number, PlannedContainer[]>();
  for (const c of plan.containers) byTier.set(c.tier, [...(byTier.get(c.tier) ?? []), c]);
  return [...byTier.entries()].sort(([a], [b]) => a - b).map(([, cs]) => cs);
};

export type PreviewFile = { title: string; container: string; path: string; content: string };

/**
 * Every file the run writes into its containers (configs, scripts, the store's schema), for
 * previews. Identical files of one role (the replicas', the load generators') are shown once; a
 * title that two roles share (the balancer's and a hot-key server's nginx.conf) is prefixed with
 * the role on both.
 */
export function previewFiles(plan: RunPlan): PreviewFile[] {
  const all = [...plan.containers, ...plan.loadgens].flatMap((c) =>
    c.files.map((f) => ({
      role: c.role,
      title: f.title ?? f.path.split("/").at(-1)!,
      container: c.name,
      path: f.path,
      content: f.content,
    })),
  );
  const shown = all.filter((f, i) => !all.slice(0, i).some((g) => g.role === f.role && g.path === f.path && g.content === f.content));
  const shared = (title: string) => new Set(shown.filter((f) => f.title === title).map((f) => f.role)).size > 1;
  return shown.map(({ role, title, ...f }) => ({ ...f, title: shared(title) ? `${role} ${title}` : title }));
}
