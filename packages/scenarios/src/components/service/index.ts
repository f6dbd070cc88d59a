import { APP_PORT, GRPC_PORT, HEALTH_PATH, SERVICE_ALIAS, SERVICE_ROLE, STATS_PATH, replicaHost } from "../../names";
import { growth, total } from "../figures";
import { runtimeThreads } from "./runtime";
import { HOT_KEY_STACK, hotKeyServer } from "./hotkey";
import { HotKeyKind, imageService } from "./config";
import { ComponentModule, PlanContext, PlannedContainer, RunIssue } from "../types";
import { TRunDefinition as TRunCreate } from "../../contract/definition";
import { customWorkload, ENDPOINTS } from "../../contract/workload";
import { ComponentForm, unless, when } from "../form";

/** The testbed's runtime knobs mean nothing for experiment 7's servers: say so instead of showing their defaults. */
const testbedOnly = (kind: string | undefined): string | undefined => (kind && kind !== "testbed" ? "— (testbed only)" : undefined);

/** Rules of the service kind across the topology and the workload. */
function serviceRules(run: TRunCreate): RunIssue[] {
  const { topology: t, workload: w } = run;
  const issues: RunIssue[] = [];
  if (w.protocol === "grpc" && t.service.kind !== "testbed") {
    issues.push({
      path: ["workload", "protocol"],
      message: `workload.protocol grpc needs service.kind testbed: the ${t.service.kind} server speaks HTTP only`,
    });
  }
  const custom = customWorkload(w);
  if (t.service.kind === "image") {
    if (!custom) {
      issues.push({
        path: ["workload", "request"],
        message:
          "service.kind image needs workload.request, workload.requests or workload.script: the built-in endpoints are the testbed's (e.g. workload.request {method: GET, path: /})",
      });
    }
    if (t.downstream.mode !== "none") {
      issues.push({
        path: ["topology", "downstream"],
        message:
          "topology.downstream is the testbed's hand-off: with service.kind image give topology.broker, and the service gets its address",
      });
    }
    for (const name of Object.keys(t.service.env ?? {})) {
      if (name === "PORT" || name.startsWith("SCALELAB_")) {
        issues.push({
          path: ["topology", "service", "env", name],
          message: `service.env.${name} is set by the lab (PORT is service.port; SCALELAB_* name the run and the replica)`,
        });
      }
    }
    return issues;
  }
  if (t.cache && t.cache.kind !== "none") {
    issues.push({
      path: ["topology", "cache"],
      message: `topology.cache applies only to service.kind image (the ${t.service.kind} server brings the store it needs)`,
    });
  }
  if (t.service.kind !== "testbed") {
    if (!custom && w.endpoint !== "key") {
      issues.push({
        path: ["workload", "endpoint"],
        message: `workload.endpoint must be key with service.kind ${t.service.kind}: it serves only the hot key (service.kind testbed serves every endpoint: ${ENDPOINTS.join(", ")})`,
      });
    }
    if (t.downstream.mode !== "none" || t.storage.kind !== "none") {
      issues.push({
        path: ["topology", t.downstream.mode !== "none" ? "downstream" : "storage"],
        message: `topology.downstream and topology.storage apply only to service.kind testbed (the ${t.service.kind} server reads one key, nothing else)`,
      });
    }
  }
  return issues;
}

const SERVICE = "topology.service";
const TESTBED = when(`${SERVICE}.kind`, "testbed");
const IMAGE = when(`${SERVICE}.kind`, "image");

/** The run form's Service section. The first fields keep the short ids the end-to-end tests have used from the start. */
const serviceForm: ComponentForm = {
  sections: [
    {
      key: "service",
      order: 10,
      title: "Service",
      hint: "The replicas behind the balancer.",
      fields: [
        {
          path: `${SERVICE}.kind`,
          id: "serviceKind",
          label: "Server",
          wide: true,
          options: {
            testbed: "testbed — the Go service with every endpoint and runtime knob",
            nginx_static: "nginx static — the hot key from a file",
            nginx_lua: "nginx + Lua — the hot key from Redis",
            rack: "Rack on Puma — the hot key from Redis",
            rack_trivial: "Rack on Puma — a constant (no Redis)",
            rails: "Rails on Puma — a page with the hot key from Redis",
            memcached: "nginx memcached_pass — the hot key from memcached",
            image: "your image — a Docker image on the lab's engine (built or uploaded)",
          },
          deps: ["workload.endpoint", "workload.protocol"],
        },
        {
          path: `${SERVICE}.image`,
          id: "image",
          label: "Image",
          wide: true,
          placeholder: "myapp:1.2",
          hint: "An image on the lab's engine: docker build -t myapp:1.2, or upload its build context.",
          when: IMAGE,
        },
        {
          path: `${SERVICE}.port`,
          id: "servicePort",
          label: "Port",
          placeholder: "8080",
          hint: "Where it serves HTTP. Empty = 8080.",
          when: IMAGE,
        },
        {
          path: `${SERVICE}.healthPath`,
          id: "healthPath",
          label: "Health path",
          placeholder: "/",
          hint: "A 2xx answer to GET here means a replica is ready. Empty = /.",
          when: IMAGE,
        },
        { path: `${SERVICE}.replicas`, id: "replicas", label: "Replicas", deps: ["topology.storage.poolSize"] },
        { path: `${SERVICE}.cpus`, id: "cpus", label: "CPU per replica", placeholder: "unlimited", hint: "Empty = no limit." },
        { path: `${SERVICE}.memoryMb`, id: "memoryMb", label: "Memory per replica (MB)" },
        {
          path: `${SERVICE}.threads`,
          id: "threads",
          label: "Threads",
          placeholder: "per CPU",
          hint: "GOMAXPROCS, nginx workers or Puma threads. Empty = one per CPU of the limit, rounded up (per host CPU without one).",
          when: unless(`${SERVICE}.kind`, "image"),
        },
        {
          path: `${SERVICE}.cpuIterations`,
          id: "cpuIterations",
          label: "CPU work per request",
          hint: "JSON encodes per request of the cpu endpoint.",
          when: TESTBED,
        },
        {
          path: `${SERVICE}.workerPool`,
          label: "Worker pool",
          hint: "Requests worked on at once per replica; 0 = unbounded.",
          when: TESTBED,
        },
        {
          path: `${SERVICE}.queueLimit`,
          label: "Queue limit",
          hint: "Requests waiting for a worker, then 503; 0 = unbounded.",
          when: [TESTBED, unless(`${SERVICE}.workerPool`, 0, undefined)],
        },
        {
          path: `${SERVICE}.logging`,
          label: "Logging (a line per request)",
          wide: true,
          options: {
            none: "none",
            async: "async — buffered, flushed in the background",
            blocking: "blocking — written and flushed by the request",
          },
          when: TESTBED,
        },
        {
          path: `${SERVICE}.logFlushMs`,
          label: "Flush cost (ms)",
          hint: "Added to every flush: a slow disk or a remote sink.",
          when: [TESTBED, unless(`${SERVICE}.logging`, "none")],
        },
      ],
    },
  ],
};

export const service: ComponentModule = {
  kind: "service",
  slot: "service",
  roles: (run) => {
    const s = run.topology.service;
    return [{ role: SERVICE_ROLE, count: s.replicas, incoming: true, path: "topology.service", cpus: s.cpus, memoryMb: s.memoryMb }];
  },
  presentation: {
    [SERVICE_ROLE]: { one: "replica", many: "replicas", name: "Replica", column: 2, color: "#2f5bea", label: "hostname" },
  },
  rules: serviceRules,
  figureDefs: [
    { key: "pool.busy", label: "Busy workers", unit: "", kind: "gauge", chart: "pool" },
    { key: "pool.queued", label: "Queued requests", unit: "", kind: "gauge", chart: "pool" },
    { key: "pool.size", label: "Pool size", unit: "", kind: "gauge", chart: "pool" },
    { key: "pool.rejected", label: "Rejected (queue full)", unit: "/s", kind: "rate", chart: "pool" },
    { key: "log.dropped", label: "Log lines dropped (async buffer full)", unit: "/s", kind: "rate", chart: "pool" },
    { key: "downstream.sent", label: "Events handed downstream", unit: "/s", kind: "rate", chart: "downstream" },
    { key: "downstream.errors", label: "Downstream errors", unit: "/s", kind: "rate", chart: "downstream" },
  ],
  form: serviceForm,
  setup: [
    // Runs stored before a field existed lack it: they ran with what is now its default.
    {
      key: "server",
      label: "Server",
      show: ({ topology: { service: sv } }) => {
        const image = imageService(sv);
        if (!image) return sv.kind ?? "testbed";
        const command = image.command ? `, command ${JSON.stringify(image.command)}` : "";
        return `image ${image.image}, port ${image.port}, health GET ${image.healthPath}${command}`;
      },
    },
    { key: "replicas", label: "Replicas", show: (s) => String(s.topology.service.replicas) },
    {
      key: "cpus",
      label: "CPU per replica",
      show: (s) => (s.topology.service.cpus === undefined ? "unlimited" : String(s.topology.service.cpus)),
    },
    { key: "memoryMb", label: "Memory per replica", show: (s) => `${s.topology.service.memoryMb} MB` },
    {
      key: "threads",
      label: "Threads",
      show: (s) => (s.topology.service.threads === undefined ? "per CPU of the limit" : String(s.topology.service.threads)),
    },
    {
      key: "workerPool",
      label: "Worker pool",
      show: ({ topology: { service: sv } }) =>
        testbedOnly(sv.kind) ?? (sv.workerPool ? `${sv.workerPool} (queue ${sv.queueLimit || "unbounded"})` : "unbounded"),
    },
    {
      key: "logging",
      label: "Logging",
      show: ({ topology: { service: sv } }) =>
        testbedOnly(sv.kind) ??
        (sv.logging === "none" ? "none" : `${sv.logging}, each flush + ${sv.logFlushMs} ms modelled (slow disk or remote sink)`),
    },
  ],
  images: ({ topology: { service: s } }) => (s.kind === "image" ? [] : [s.kind === "testbed" ? "testbed" : HOT_KEY_STACK[s.kind].image]),
  plan: (ctx) => {
    const { run, container } = ctx;
    const s = run.topology.service;
    if (s.kind === "image") return planImageReplicas(ctx);
    if (s.kind !== "testbed") return planHotKeyReplicas(ctx, s.kind);
    return Array.from({ length: s.replicas }, (_, i) =>
      container({
        index: i,
        role: SERVICE_ROLE,
        component: "service",
        title: `replica ${replicaHost(i)}`,
        image: "testbed",
        hostname: replicaHost(i),
        // `app` is shared by every replica: HAProxy's server-template and the balancer-less runs resolve it to all of them.
        aliases: [replicaHost(i), SERVICE_ALIAS],
        env: {
          TESTBED_ROLE: "service",
          TESTBED_PORT: String(APP_PORT),
          TESTBED_GRPC_PORT: String(GRPC_PORT),
          TESTBED_CPU_ITERATIONS: String(s.cpuIterations),
          ...runtimeThreads(s.threads, s.cpus),
          TESTBED_WORKER_POOL: String(s.workerPool),
          TESTBED_QUEUE_LIMIT: String(s.queueLimit),
          TESTBED_LOGGING: s.logging,
          TESTBED_LOG_FLUSH_MS: String(s.logFlushMs),
          ...ctx.clientEnv(),
        },
        cpus: s.cpus,
        memoryMb: s.memoryMb,
        ports: [APP_PORT, GRPC_PORT],
        tier: 1,
        ready: [{ kind: "http", port: APP_PORT, path: HEALTH_PATH }],
        stats: { port: APP_PORT, path: STATS_PATH },
      }),
    );
  },
  figures: (input, run) => {
    const s = run.topology.service;
    // The hot-key servers have no figures endpoint.
    if (s.kind !== "testbed") return {};
    const out: Record<string, number> = {};
    // Busy = requests in flight even without a pool: what shows a starving replica.
    out["pool.size"] = s.workerPool * s.replicas;
    out["pool.busy"] = total(input.current, SERVICE_ROLE, (x) => x.pool.busy);
    out["pool.queued"] = total(input.current, SERVICE_ROLE, (x) => x.pool.queued);
    out["pool.rejected"] = growth(input, SERVICE_ROLE, (x) => x.pool.rejected);
    if (s.logging === "async") out["log.dropped"] = growth(input, SERVICE_ROLE, (x) => x.log.dropped);
    if (run.topology.downstream.mode !== "none") {
      out["downstream.sent"] = growth(input, SERVICE_ROLE, (x) => x.downstream.sent);
      out["downstream.errors"] = growth(input, SERVICE_ROLE, (x) => x.downstream.errors);
    }
    return out;
  },
};

/** Replicas of one of experiment 7's servers: the same names, aliases, limits and tier as the testbed's. */
function planHotKeyReplicas({ run, container }: PlanContext, kind: HotKeyKind): PlannedContainer[] {
  const s = run.topology.service;
  const server = hotKeyServer(kind, { workers: s.threads ?? (s.cpus === undefined ? "auto" : Math.ceil(s.cpus)) });
  return Array.from({ length: s.replicas }, (_, i) =>
    container({
      index: i,
      role: SERVICE_ROLE,
      component: "service",
      title: `replica ${replicaHost(i)} (${kind})`,
      image: server.image,
      hostname: replicaHost(i),
      aliases: [replicaHost(i), SERVICE_ALIAS],
      env: server.env,
      ...(server.cmd && { cmd: server.cmd }),
      files: server.files,
      cpus: s.cpus,
      memoryMb: s.memoryMb,
      ports: [APP_PORT],
      tier: 1,
      ready: server.ready,
    }),
  );
}

/**
 * Replicas of a user's image: the same names, aliases, limits and tier as the testbed's; its own
 * port, health path, command and environment, beside the lab's (PORT, the replica's name and the
 * run's dependencies); run as untrusted (./types.ts PlannedContainer.untrusted).
 */
function planImageReplicas(ctx: PlanContext): PlannedContainer[] {
  const { run, container } = ctx;
  const s = run.topology.service;
  const image = imageService(s);
  if (!image) throw new Error("service.kind image needs service.image");
  return Array.from({ length: s.replicas }, (_, i) =>
    container({
      index: i,
      role: SERVICE_ROLE,
      component: "service",
      title: `replica ${replicaHost(i)} (${image.image})`,
      image: { user: image.image },
      hostname: replicaHost(i),
      aliases: [replicaHost(i), SERVICE_ALIAS],
      // The lab's names last: the contract refuses a service.env name the lab sets (registry.ts labEnvIssues).
      env: { ...image.env, ...ctx.serviceEnv(), PORT: String(image.port), SCALELAB_REPLICA: replicaHost(i) },
      ...(image.command && { cmd: image.command }),
      cpus: s.cpus,
      memoryMb: s.memoryMb,
      ports: [image.port],
      tier: 1,
      ready: [{ kind: "http", port: image.port, path: image.healthPath }],
      untrusted: true,
    }),
  );
}
