import { zodResolver } from "@hookform/resolvers/zod";
import type { FaultableRole } from "@scalelab/scenarios/contract";
import { fieldInfo, type FieldInfo } from "@scalelab/scenarios/contract";
import { FORM_SECTIONS, faultableRoles, type FormFieldSpec, type FormSectionSpec } from "@scalelab/scenarios/components";
import {
  balancerSettings,
  ZBalancer,
  ZBroker,
  ZCache,
  ZDownstream,
  ZRunCreate,
  ZService,
  ZStorage,
  type TRunCreateInput,
  type TTopologyInput,
  type TWorkloadInput,
} from "@scalelab/scenarios/contract";
import { get, type FieldErrors, type Path, type Resolver, type ResolverOptions } from "react-hook-form";
import { faultBody, type FaultFormValue } from "./faults";
import type { FieldIssue } from "./issues";

/**
 * The new-run form, bound to ZRunCreate: its values are the run body (every component present,
 * shown or not) plus the load model, its field names are the body's paths, so the schema's issues
 * and the server's land on the fields by name. Ranges, defaults and enum values are read from the
 * schema; a new knob is one line in SECTIONS.
 */

export const LOAD_MODELS = ["closed", "open"] as const;
export type LoadModel = (typeof LOAD_MODELS)[number];

type Components = { [K in keyof TTopologyInput]-?: NonNullable<TTopologyInput[K]> };
/** `faults` are the rows of the form's fault timeline (fault-editor.tsx), at the body's paths too. */
export type RunFormValues = { name: string; model: LoadModel; topology: Components; workload: TWorkloadInput; faults: FaultFormValue[] };
export type FormPath = Path<RunFormValues>;

export const DEFAULT_FORM: RunFormValues = {
  name: "",
  model: "closed",
  topology: {
    // The schema leaves the kind-dependent algorithm and the health knobs out; the form shows their defaults.
    balancer: { ...ZBalancer.parse({}), ...balancerSettings(ZBalancer.parse({})) },
    service: { ...ZService.parse({}), replicas: 3, cpus: 0.2 },
    downstream: ZDownstream.parse({}),
    broker: ZBroker.parse({}),
    storage: ZStorage.parse({}),
    cache: ZCache.parse({}),
  },
  workload: {
    endpoint: "cpu",
    loadgen: "k6",
    protocol: "http",
    vus: 3,
    arrivalRate: 100,
    connections: 50,
    durationSeconds: 20,
    loadgenCpus: 1,
    loadgenInstances: 1,
  },
  faults: [],
};

/** A field or section is shown while the value at `path` is (or is not) one of the values. */
export type Condition = { path: FormPath; in: readonly unknown[]; negate?: true };
const when = (path: FormPath, ...values: unknown[]): Condition => ({ path, in: values });

/** A field of the form (the components declare theirs, @scalelab/scenarios/components FormFieldSpec), with typed paths. */
export type FieldSpec = Omit<FormFieldSpec, "path" | "when" | "deps"> & {
  path: FormPath;
  when?: Condition | Condition[];
  deps?: FormPath[];
};

export type SectionSpec = Omit<FormSectionSpec, "when" | "object" | "fields" | "order"> & {
  when?: Condition;
  object?: FormPath;
  fields: FieldSpec[];
};

const K6 = when("workload.loadgen", "k6");
const WRK = when("workload.loadgen", "wrk");

export const SECTIONS: readonly SectionSpec[] = [
  {
    key: "run",
    title: "Run",
    fields: [
      {
        path: "name",
        id: "name",
        label: "Name (optional)",
        wide: true,
        placeholder: "e.g. 3 replicas at 0.2 CPU",
        hint: "Shown in lists and comparisons.",
      },
    ],
  },
  // The topology's sections come from its components (@scalelab/scenarios/components FORM_SECTIONS).
  ...(FORM_SECTIONS as readonly SectionSpec[]),
  {
    key: "workload",
    title: "Workload",
    fields: [
      {
        path: "workload.endpoint",
        id: "endpoint",
        label: "Endpoint",
        wide: true,
        options: {
          hostname: "hostname — returns the replica's host name",
          cpu: "cpu — JSON-encodes a random string N times",
          products: "products — reads products from the store",
          activity: "activity — writes an activity row to the store",
          key: "key — reads the hot key (from Redis)",
        },
      },
      {
        path: "workload.loadgen",
        id: "loadgen",
        label: "Load generator",
        wide: true,
        segmented: true,
        options: { k6: "k6 — VUs or an arrival rate", wrk: "wrk — connections, fastest" },
        deps: ["workload.protocol", "workload.vus"],
      },
      {
        path: "workload.protocol",
        id: "protocol",
        label: "Protocol",
        segmented: true,
        options: { http: "HTTP/1.1", grpc: "gRPC (Hostname/Get)" },
        when: K6,
        deps: ["workload.endpoint"],
      },
      {
        path: "model",
        id: "model",
        label: "Load model",
        wide: true,
        segmented: true,
        options: { closed: "Closed — fixed virtual users", open: "Open — fixed arrival rate" },
        when: K6,
      },
      { path: "workload.vus", id: "vus", label: "Virtual users", hint: "Connections looping.", when: [K6, when("model", "closed")] },
      // The schema names a missing load on workload.vus, hidden in the open model.
      {
        path: "workload.arrivalRate",
        id: "arrivalRate",
        label: "Arrival rate (req/s)",
        when: [K6, when("model", "open")],
        deps: ["workload.vus"],
      },
      {
        path: "workload.maxVus",
        id: "maxVus",
        label: "Max VUs",
        placeholder: "auto",
        hint: "Empty = chosen from the rate.",
        when: [K6, when("model", "open")],
      },
      {
        path: "workload.connections",
        id: "connections",
        label: "Connections",
        hint: "Kept busy: the next request goes as soon as one is answered.",
        when: WRK,
        deps: ["workload.threads"],
      },
      {
        path: "workload.threads",
        id: "wrkThreads",
        label: "Threads per instance",
        placeholder: "per CPU",
        hint: "Empty = one per CPU of the load generator.",
        when: WRK,
      },
      { path: "workload.durationSeconds", id: "durationSeconds", label: "Duration (s)" },
      {
        path: "workload.loadgenCpus",
        id: "loadgenCpus",
        label: "Load generator CPU",
        hint: "Per instance; its CPU use is recorded and flagged when saturated.",
      },
      {
        path: "workload.loadgenInstances",
        id: "loadgenInstances",
        label: "Load generator instances",
        hint: "Share the load; their figures merge into one series.",
        deps: ["workload.vus", "workload.arrivalRate", "workload.threads"],
      },
    ],
  },
];

const ALL_FIELDS = SECTIONS.flatMap((s) => s.fields.map((field) => ({ section: s, field })));

export const fieldId = (f: FieldSpec): string => f.id ?? f.path.replace(/^topology\./, "");

const MODEL_INFO: FieldInfo = { kind: "enum", options: LOAD_MODELS, optional: false };

/** The field's control, range and default, from the schema (the load model is the form's own). */
export const infoOf = (path: FormPath): FieldInfo => (path === "model" ? MODEL_INFO : fieldInfo(ZRunCreate, path));

/** "1–16", "0.05–64"; empty for fields without a range. */
export function rangeOf(info: FieldInfo): string {
  return info.kind === "number" && info.min !== null && info.max !== null ? `${info.min}–${info.max}` : "";
}

/** A field's hint: the schema's range, then the form's words ("1–16 · Empty = no limit."). */
export const fieldHint = (info: FieldInfo, hint?: string): string => [rangeOf(info), hint].filter(Boolean).join(" · ");

export const holds = (c: Condition | Condition[] | undefined, v: RunFormValues): boolean =>
  !c || (Array.isArray(c) ? c.every((one) => holds(one, v)) : c.in.includes(get(v, c.path)) !== Boolean(c.negate));

const conditionPaths = (c: Condition | Condition[] | undefined): FormPath[] =>
  c === undefined ? [] : Array.isArray(c) ? c.map((one) => one.path) : [c.path];

export const sectionShown = (s: SectionSpec, v: RunFormValues) => holds(s.when, v);

/** The fields on screen for these values, in order. */
export function visibleFields(v: RunFormValues): FieldSpec[] {
  return ALL_FIELDS.filter(({ section, field }) => holds(section.when, v) && holds(field.when, v)).map(({ field }) => field);
}

/** The fields to re-check when this one changes: those it shows or hides, and its declared dependants. */
export function depsOf(f: FieldSpec): FormPath[] {
  const shown = ALL_FIELDS.filter(({ section, field }) =>
    [...conditionPaths(field.when), ...conditionPaths(section.when)].includes(f.path),
  ).map(({ field }) => field.path);
  return [...new Set([...(f.deps ?? []), ...shown])];
}

function unset(target: object, path: string): void {
  const keys = path.split(".");
  const last = keys.pop()!;
  let at: unknown = target;
  for (const k of keys) at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[k] : undefined;
  if (typeof at === "object" && at !== null) delete (at as Record<string, unknown>)[last];
}

/**
 * The API body of what is on screen: hidden fields and sections are left out, so the schema's
 * defaults apply to them; each fault with only the parameters its action takes, none when empty.
 */
export function toRunInput(v: RunFormValues): TRunCreateInput {
  const { model: _model, faults, ...body } = structuredClone(v);
  const visible = new Set(visibleFields(v).map((f) => f.path));
  for (const s of SECTIONS) if (s.object && !sectionShown(s, v)) unset(body, s.object);
  for (const { field } of ALL_FIELDS) if (!visible.has(field.path)) unset(body, field.path);
  const name = v.name.trim();
  if (name) body.name = name;
  else unset(body, "name");
  return { ...body, ...(faults.length > 0 && { faults: faults.map(faultBody) }) } as TRunCreateInput;
}

/** The roles a fault can target in the topology on screen, whatever its faults; null while the rest of the form is invalid. */
export function faultRolesOf(v: RunFormValues): Record<string, FaultableRole> | null {
  const run = ZRunCreate.safeParse({ ...toRunInput(v), faults: [] });
  return run.success ? faultableRoles(run.data) : null;
}

const resolveBody = zodResolver(ZRunCreate, undefined, { raw: true });

/** Checks the body the form would send with ZRunCreate; issues come back at the body's paths, which are the fields' names. */
export const runFormResolver: Resolver<RunFormValues, unknown, TRunCreateInput> = async (values, context, options) => {
  const result = await resolveBody(toRunInput(values), context, options as unknown as ResolverOptions<TRunCreateInput>);
  return result as Awaited<ReturnType<Resolver<RunFormValues, unknown, TRunCreateInput>>>;
};

/** A number input's text as the API wants it: empty is "not given"; anything else a number (the schema names a NaN). */
export function numberFromInput(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  const text = String(value ?? "").trim();
  return text === "" ? undefined : Number(text);
}

/** Every message in a react-hook-form error tree, with its dotted path (`root.server` for the form's own). */
export function errorMessages(errors: FieldErrors, prefix = ""): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const [key, value] of Object.entries(errors)) {
    if (key === "ref" || typeof value !== "object" || value === null) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const message = (value as { message?: unknown }).message;
    if (typeof message === "string" && message) out.push({ path, message });
    else out.push(...errorMessages(value as FieldErrors, path));
  }
  return out;
}

/** Where a server issue goes: its field's name, or the form's own error when it names no path. */
export const issueTarget = (path: string): FormPath | "root.server" => (path ? (path as FormPath) : "root.server");
