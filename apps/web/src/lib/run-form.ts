import { BALANCER_ALGORITHMS, ENDPOINTS, ZRunCreate, type TRunCreateInput } from "@scalelab/scenarios/schemas";
import { issuesByPath, toFieldIssues } from "./issues";

/** The new-run form as the user typed it: numbers stay strings until they are parsed. */
export type RunForm = {
  name: string;
  replicas: string;
  cpus: string;
  memoryMb: string;
  threads: string;
  cpuIterations: string;
  algorithm: (typeof BALANCER_ALGORITHMS)[number];
  endpoint: (typeof ENDPOINTS)[number];
  model: "closed" | "open";
  vus: string;
  arrivalRate: string;
  maxVus: string;
  durationSeconds: string;
};

export const DEFAULT_FORM: RunForm = {
  name: "",
  replicas: "3",
  cpus: "0.2",
  memoryMb: "256",
  threads: "",
  cpuIterations: "1000",
  algorithm: "round_robin",
  endpoint: "cpu",
  model: "closed",
  vus: "3",
  arrivalRate: "100",
  maxVus: "",
  durationSeconds: "20",
};

export type FormField = Exclude<keyof RunForm, "model">;

/** Where each form field lands in the API body; issues come back with these paths. */
export const FIELD_PATHS: Record<FormField, string> = {
  name: "name",
  replicas: "topology.service.replicas",
  cpus: "topology.service.cpus",
  memoryMb: "topology.service.memoryMb",
  threads: "topology.service.threads",
  cpuIterations: "topology.service.cpuIterations",
  algorithm: "topology.balancer.algorithm",
  endpoint: "workload.endpoint",
  vus: "workload.vus",
  arrivalRate: "workload.arrivalRate",
  maxVus: "workload.maxVus",
  durationSeconds: "workload.durationSeconds",
};

/** "" is "not given"; anything else that is not a number stays NaN so the schema names the field. */
function num(text: string): number | undefined {
  const t = text.trim();
  return t === "" ? undefined : Number(t);
}

export function toRunInput(f: RunForm): TRunCreateInput {
  const open = f.model === "open";
  return {
    ...(f.name.trim() ? { name: f.name.trim() } : {}),
    topology: {
      balancer: { kind: "nginx", algorithm: f.algorithm },
      service: {
        replicas: num(f.replicas) as number,
        cpus: num(f.cpus),
        memoryMb: num(f.memoryMb),
        threads: num(f.threads),
        cpuIterations: num(f.cpuIterations),
      },
    },
    workload: {
      endpoint: f.endpoint,
      vus: open ? undefined : num(f.vus),
      arrivalRate: open ? num(f.arrivalRate) : undefined,
      maxVus: open ? num(f.maxVus) : undefined,
      durationSeconds: num(f.durationSeconds),
    },
  };
}

export type Checked = { ok: true; input: TRunCreateInput } | { ok: false; input: TRunCreateInput; issues: Record<string, string> };

/** The same parse the server does, so the form can show each field's problem before submitting. */
export function checkRunForm(f: RunForm): Checked {
  const input = toRunInput(f);
  const r = ZRunCreate.safeParse(input);
  if (r.success) return { ok: true, input };
  return {
    ok: false,
    input,
    issues: issuesByPath(toFieldIssues(r.error.issues)),
  };
}
