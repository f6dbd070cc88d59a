import { z } from "zod";
import { int, num, oneOf, strict } from "./fields";

/**
 * The fault timeline of a run: what happens to which container at which second of the load.
 * Container faults go to the Docker engine; network faults go to a toxiproxy container that the
 * plan puts in front of the target (this kernel has no netem), only when the run has any.
 */

export const CONTAINER_FAULTS = ["stop", "start", "kill", "restart", "pause", "unpause"] as const;
/** Faults on the target's incoming traffic, each active until a `clear` (one at a time per target). */
export const NETWORK_FAULTS = ["delay", "loss", "bandwidth", "reset"] as const;
export const FAULT_ACTIONS = [...CONTAINER_FAULTS, ...NETWORK_FAULTS, "clear"] as const;
export type FaultAction = (typeof FAULT_ACTIONS)[number];
export type NetworkFault = (typeof NETWORK_FAULTS)[number];

export const FAULT_LIMITS = {
  faults: { max: 50 },
  index: { min: 0, max: 63 },
  ms: { min: 1, max: 60_000 },
  jitterMs: { min: 0, max: 60_000 },
  percent: { min: 0.1, max: 100 },
  kbps: { min: 1, max: 10_000_000 },
} as const;

/** What each action takes besides `at` and `target`. */
export const FAULT_PARAMS: Record<FaultAction, readonly ("ms" | "jitterMs" | "percent" | "kbps")[]> = {
  stop: [],
  start: [],
  kill: [],
  restart: [],
  pause: [],
  unpause: [],
  delay: ["ms", "jitterMs"],
  loss: ["percent"],
  bandwidth: ["kbps"],
  reset: [],
  clear: [],
};
const REQUIRED_PARAMS: Partial<Record<FaultAction, "ms" | "percent" | "kbps">> = { delay: "ms", loss: "percent", bandwidth: "kbps" };

export const isNetworkFault = (a: FaultAction): a is NetworkFault => (NETWORK_FAULTS as readonly string[]).includes(a);

const ROLE_PATTERN = /^[a-z][a-z0-9]{0,15}$/;

export const ZFaultTarget = strict("target", {
  /** A role of the plan: app (a replica), lb, kafka, db, cache, consumer, logs. */
  role: z
    .string({ error: "target.role must be a string" })
    .regex(ROLE_PATTERN, { error: "target.role must be a role of the plan: lowercase letters and digits, e.g. app, lb, db" }),
  index: int("target.index", FAULT_LIMITS.index).default(0),
});
export type TFaultTarget = z.infer<typeof ZFaultTarget>;

export const ZFault = strict("fault", {
  /** Seconds from the start of the measured load. */
  at: int("at", { min: 0, max: 3600 }),
  action: oneOf("action", FAULT_ACTIONS),
  target: ZFaultTarget,
  /** delay: added to every request into the target. */
  ms: int("ms", FAULT_LIMITS.ms).optional(),
  /** delay: ± this much at random. */
  jitterMs: int("jitterMs", FAULT_LIMITS.jitterMs).optional(),
  /** loss: share of the connections into the target whose data is dropped. */
  percent: num("percent", FAULT_LIMITS.percent).optional(),
  /** bandwidth: kilobits per second, each direction. */
  kbps: int("kbps", FAULT_LIMITS.kbps).optional(),
}).superRefine((f, ctx) => {
  const allowed = FAULT_PARAMS[f.action];
  for (const p of ["ms", "jitterMs", "percent", "kbps"] as const) {
    if (f[p] !== undefined && !allowed.includes(p)) {
      ctx.addIssue({ code: "custom", path: [p], message: `${p} applies to ${actionsTaking(p)} only, not to ${f.action}` });
    }
  }
  const required = REQUIRED_PARAMS[f.action];
  if (required && f[required] === undefined) {
    const r = FAULT_LIMITS[required];
    ctx.addIssue({ code: "custom", path: [required], message: `${f.action} needs ${required} (${r.min}–${r.max})` });
  }
});
export type TFault = z.infer<typeof ZFault>;
export type TFaultInput = z.input<typeof ZFault>;

const actionsTaking = (p: string) => FAULT_ACTIONS.filter((a) => (FAULT_PARAMS[a] as readonly string[]).includes(p)).join(", ");

export const ZFaults = z
  .array(ZFault, { error: "faults must be an array" })
  .max(FAULT_LIMITS.faults.max, { error: `faults may list at most ${FAULT_LIMITS.faults.max} faults` });

/** A role of the plan as faults see it: how many containers it has and whether a network-fault proxy can stand in front of it. */
export type FaultableRole = { count: number; title: string; incoming: boolean };

export type FaultIssue = { path: (string | number)[]; message: string };

type ContainerState = "running" | "stopped" | "paused";

/** The fault's label in messages and charts: `stop app-2 @30s`. */
export const faultLabel = (f: Pick<TFault, "action" | "target" | "at">): string =>
  `${f.action} ${f.target.role}-${f.target.index} @${f.at}s`;

/** Faults in the order they are applied: by second, then as listed. */
export function faultSchedule<F extends Pick<TFault, "at">>(faults: readonly F[]): { fault: F; index: number }[] {
  return faults.map((fault, index) => ({ fault, index })).sort((a, b) => a.fault.at - b.fault.at || a.index - b.index);
}

const REQUIRES: Record<Exclude<FaultAction, NetworkFault | "clear">, { from: ContainerState[]; to: ContainerState; hint: string }> = {
  stop: { from: ["running"], to: "stopped", hint: "stop needs a running container" },
  kill: { from: ["running"], to: "stopped", hint: "kill needs a running container" },
  start: { from: ["stopped"], to: "running", hint: "start needs a stopped container (stop or kill it first)" },
  restart: { from: ["running", "stopped"], to: "running", hint: "restart needs a running or stopped container (unpause it first)" },
  pause: { from: ["running"], to: "paused", hint: "pause needs a running container" },
  unpause: { from: ["paused"], to: "running", hint: "unpause needs a paused container (pause it first)" },
};

/**
 * Checks a fault timeline against the run: each target exists in the plan, each fault falls
 * within the load, each container action finds the container in the state it needs (a `start`
 * of a container that is not stopped at that second is an error), and a target has at most one
 * network fault at a time (`clear` ends it). Every message names the fault by its position.
 */
export function faultIssues(
  faults: readonly TFault[],
  roles: Readonly<Record<string, FaultableRole>>,
  durationSeconds: number,
): FaultIssue[] {
  const issues: FaultIssue[] = [];
  const state = new Map<string, ContainerState>();
  const network = new Map<string, { index: number; fault: TFault }>();
  const known = Object.keys(roles).join(", ");
  for (const { fault: f, index: i } of faultSchedule(faults)) {
    const name = `faults[${i}] (${faultLabel(f)})`;
    const issue = (path: (string | number)[], message: string) =>
      issues.push({ path: ["faults", i, ...path], message: `${name}: ${message}` });
    if (f.at >= durationSeconds) {
      issue(["at"], `at must be before the end of the load (0–${durationSeconds - 1} s for workload.durationSeconds ${durationSeconds})`);
      continue;
    }
    const role = roles[f.target.role];
    if (!role) {
      issue(["target", "role"], `the run has no ${f.target.role}; roles it can fault: ${known}`);
      continue;
    }
    if (f.target.index >= role.count) {
      issue(["target", "index"], `target.index must be between 0 and ${role.count - 1}: the run has ${role.count} ${role.title}`);
      continue;
    }
    const key = `${f.target.role}-${f.target.index}`;
    if (f.action === "clear" || isNetworkFault(f.action)) {
      if (!role.incoming) {
        issue(
          ["action"],
          `${f.target.role} cannot take a network fault: no proxy can stand in front of it (it takes no incoming connections, or its clients find it by address, like Cassandra's); container faults work`,
        );
        continue;
      }
      const active = network.get(key);
      if (f.action === "clear") {
        if (!active) issue(["action"], `clear needs a network fault on ${key} before it (delay, loss, bandwidth or reset)`);
        network.delete(key);
      } else if (active) {
        issue(
          ["action"],
          `overlaps faults[${active.index}] (${faultLabel(active.fault)}): one network fault at a time per target, clear it first`,
        );
      } else {
        network.set(key, { index: i, fault: f });
      }
      continue;
    }
    const rule = REQUIRES[f.action];
    const now = state.get(key) ?? "running";
    if (!rule.from.includes(now)) {
      issue(["action"], `${rule.hint}; ${key} is ${now} at ${f.at} s`);
      continue;
    }
    state.set(key, rule.to);
  }
  return issues;
}

/** The action that undoes a fault, for its window and the return of the load. */
export const UNDO: Partial<Record<FaultAction, FaultAction[]>> = {
  stop: ["start", "restart"],
  kill: ["start", "restart"],
  pause: ["unpause"],
  delay: ["clear"],
  loss: ["clear"],
  bandwidth: ["clear"],
  reset: ["clear"],
};

/** When and how a fault was applied, as the worker recorded it (absent until its second came). */
export const ZFaultActual = z.object({
  /** When the call went to the engine or the proxy, in ms from the start of the load. */
  atMs: z.number(),
  /** atMs − at × 1000: how late it was applied. */
  lagMs: z.number(),
  /** How long the engine or the proxy took to carry it out. */
  tookMs: z.number(),
  /** Why it failed (the engine refused, the run ended first); absent when it took effect. */
  error: z.string().optional(),
});
export type TFaultActual = z.infer<typeof ZFaultActual>;

/** A fault of a run as stored and shown: the definition, and once applied, its actual time. */
export const ZFaultRecord = z.object({
  at: z.number().int(),
  action: z.enum(FAULT_ACTIONS),
  target: z.object({ role: z.string(), index: z.number().int() }),
  ms: z.number().int().optional(),
  jitterMs: z.number().int().optional(),
  percent: z.number().optional(),
  kbps: z.number().int().optional(),
  actual: ZFaultActual.optional(),
});
export type TFaultRecord = z.infer<typeof ZFaultRecord>;

/** Error kinds counted per backend and second. */
export const ERROR_KINDS = ["502", "503", "504", "timeout", "conn", "other"] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];
export const ZErrorCounts = z.partialRecord(z.enum(ERROR_KINDS), z.number().int());
export type TErrorCounts = z.infer<typeof ZErrorCounts>;

/** What a fault did to the load, in the run's summary. */
export const ZFaultEffect = z.object({
  at: z.number().int(),
  action: z.enum(FAULT_ACTIONS),
  target: z.object({ role: z.string(), index: z.number().int() }),
  /** Failed requests from its second to the next fault's (or the end of the load). */
  failedRequests: z.number().int(),
  /** The same, by kind. */
  errors: ZErrorCounts.optional(),
  /** Seconds from the fault until the target's share of the load fell (null: it did not, or not a replica). */
  shiftSeconds: z.number().nullable(),
  /** Seconds from the fault that undid it (start, unpause, clear) until the target had its share again (null: it did not). */
  returnSeconds: z.number().nullable(),
});
export type TFaultEffect = z.infer<typeof ZFaultEffect>;
