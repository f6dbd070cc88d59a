import { K6_ENV, renderK6Script } from "./k6";
import { APP_PORT, renderNginxConf } from "./nginx";
import type { TRunCreate } from "./schemas";

export type Role = "app" | "lb" | "loadgen";

export const LABELS = {
  managed: "scalelab.managed",
  run: "scalelab.run",
  role: "scalelab.role",
  /** Which control plane (database) the run belongs to, so a sweep leaves other planes' runs alone. */
  instance: "scalelab.instance",
} as const;

/** Lowercase letters, digits and inner hyphens (a cuid, a uuid): the id ends up in Docker names. */
export const RUN_ID_PATTERN = /^[a-z0-9][a-z0-9-]{6,62}[a-z0-9]$/;

export function assertRunId(runId: string): void {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new Error(`invalid run id ${JSON.stringify(runId)}: expected 8–64 lowercase letters, digits or inner hyphens`);
  }
}

export type PlannedFile = { path: string; content: string };

export type PlannedContainer = {
  name: string;
  role: Role;
  image: string;
  hostname: string;
  /** DNS names on the run network. */
  aliases: string[];
  env: Record<string, string>;
  cmd?: string[];
  /** CPU limit in billionths of a CPU; absent = no limit. */
  nanoCpus?: number;
  memoryBytes?: number;
  labels: Record<string, string>;
  /** Written into the container before it starts. */
  files: PlannedFile[];
};

export type RunPlan = {
  runId: string;
  network: { name: string; labels: Record<string, string> };
  apps: PlannedContainer[];
  lb: PlannedContainer;
  loadgen: PlannedContainer;
  /** The X-Backend values the replicas answer with (their host names). */
  backends: string[];
};

export type PlanInput = {
  runId: string;
  instance?: string;
  run: TRunCreate;
  images: { testbed: string; nginx: string; k6: string };
};

export const NGINX_CONF_PATH = "/etc/nginx/nginx.conf";
export const K6_SCRIPT_PATH = "/scalelab/load.js";

const MB = 1024 * 1024;
const nanoCpus = (cpus: number | undefined) => (cpus === undefined ? undefined : Math.round(cpus * 1e9));

/** Labels of every object of the run; `instance` is added when the plan has one. */
export function runLabels(runId: string, instance?: string): Record<string, string> {
  return { [LABELS.managed]: "true", [LABELS.run]: runId, ...(instance && { [LABELS.instance]: instance }) };
}

export function buildPlan({ runId, instance, run, images }: PlanInput): RunPlan {
  assertRunId(runId);
  if (instance !== undefined && !/^[a-z0-9-]{1,64}$/.test(instance)) throw new Error(`invalid instance id ${JSON.stringify(instance)}`);
  const { service, balancer } = run.topology;
  const short = runId.slice(0, 8);
  const container = (role: Role, index: number, rest: Omit<PlannedContainer, "name" | "role" | "labels">): PlannedContainer => ({
    name: `sl-${short}-${role}-${index}`,
    role,
    labels: { ...runLabels(runId, instance), [LABELS.role]: role },
    ...rest,
  });

  const apps = Array.from({ length: service.replicas }, (_, i) => {
    const host = `app-${i}`;
    return container("app", i, {
      image: images.testbed,
      hostname: host,
      aliases: [host],
      env: {
        TESTBED_PORT: String(APP_PORT),
        TESTBED_CPU_ITERATIONS: String(service.cpuIterations),
        ...(service.threads !== undefined && { TESTBED_THREADS: String(service.threads) }),
      },
      nanoCpus: nanoCpus(service.cpus),
      memoryBytes: service.memoryMb * MB,
      files: [],
    });
  });
  const backends = apps.map((a) => a.hostname);

  const lb = container("lb", 0, {
    image: images.nginx,
    hostname: "lb",
    aliases: ["lb"],
    env: {},
    nanoCpus: nanoCpus(balancer.cpus),
    files: [{ path: NGINX_CONF_PATH, content: renderNginxConf({ algorithm: balancer.algorithm, upstreams: backends }) }],
  });

  const loadgen = container("loadgen", 0, {
    image: images.k6,
    hostname: "loadgen",
    aliases: ["loadgen"],
    env: { ...K6_ENV },
    cmd: ["run", "--no-color", "--quiet", K6_SCRIPT_PATH],
    nanoCpus: nanoCpus(run.workload.loadgenCpus),
    files: [{ path: K6_SCRIPT_PATH, content: renderK6Script(run.workload) }],
  });

  return { runId, network: { name: `sl-run-${runId}`, labels: runLabels(runId, instance) }, apps, lb, loadgen, backends };
}
