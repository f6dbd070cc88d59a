import type { FaultableRole } from "@scalelab/scenarios/contract";
import { fieldInfo, hostMax, KIND_FIELDS, kindDefaults, type FieldInfo, type THostFacts } from "@scalelab/scenarios/contract";
import { FORM_SECTIONS, faultableRoles, serviceEnv, type FormFieldSpec, type FormSectionSpec } from "@scalelab/scenarios/components";
import {
  balancerSettings,
  HTTP_METHODS,
  LIMITS,
  ZBalancer,
  ZBroker,
  ZCache,
  ZDownstream,
  ZRunCreate,
  ZService,
  ZStorage,
  ZTopology,
  type TRunCreateInput,
  type TTopologyInput,
  type TWorkloadInput,
} from "@scalelab/scenarios/contract";
import { LOCAL_ENGINE, type TPlacement } from "@scalelab/scenarios/contract";
import { pinnableRoles } from "./engine-form";
import { get, set, type FieldErrors, type Path, type Resolver } from "react-hook-form";
import { faultBody, type FaultFormValue } from "./faults";
import { parseCommand, parseEnv, parseHeaders, parseThresholds } from "./form-text";
import { toFieldIssues, type FieldIssue } from "./issues";

/**
 * The new-run form, bound to ZRunCreate: its values are the run body (every component present,
 * shown or not) plus the load model, its field names are the body's paths, so the schema's issues
 * and the server's land on the fields by name. Ranges, defaults and enum values are read from the
 * schema; a new knob is one line in SECTIONS.
 */

export const LOAD_MODELS = ["closed", "open"] as const;
export type LoadModel = (typeof LOAD_MODELS)[number];

/**
 * What the load sends (form-only, like the load model): one of the testbed's endpoints, one
 * request, a weighted mix of requests (k6) or the user's k6 script. Only the chosen one is sent.
 */
export const TRAFFIC = ["endpoint", "request", "requests", "script"] as const;
export type Traffic = (typeof TRAFFIC)[number];

/**
 * Text the form turns into the body's objects and lists (form-only): the service's environment
 * (`NAME=value` per line) and command (one argv item per line), the request's headers (`Name: value` per line).
 */
export type FormText = { env: string; command: string; headers: string; thresholds: string };

type Components = { [K in Exclude<keyof TTopologyInput, "placement">]-?: NonNullable<TTopologyInput[K]> } & {
  /** The body's placement, with every role's pin ("" = not pinned) and the load generators' choice always present. */
  placement: PlacementFormValue;
};
/** `topology.placement` on the form: sent only on an engine other than local, without the roles left unpinned. */
export type PlacementFormValue = { strategy: TPlacement["strategy"]; pin: Record<string, string>; loadgen: { separate: boolean } };
/** `faults` are the rows of the form's fault timeline (fault-editor.tsx), at the body's paths too. */
export type RunFormValues = {
  name: string;
  /** The engine it runs on: local (the lab's own) or a Swarm cluster's name (engines.list). */
  engine: string;
  model: LoadModel;
  traffic: Traffic;
  text: FormText;
  /** Optional sections switched on (a broker beside a user's image). */
  include: { broker: boolean };
  topology: Components;
  workload: TWorkloadInput;
  faults: FaultFormValue[];
};
export type FormPath = Path<RunFormValues>;

export const DEFAULT_FORM: RunFormValues = {
  name: "",
  engine: LOCAL_ENGINE,
  model: "closed",
  traffic: "endpoint",
  text: { env: "", command: "", headers: "", thresholds: "" },
  include: { broker: false },
  topology: {
    // The schema leaves the kind-dependent algorithm and the health knobs out; the form shows their defaults.
    balancer: { ...ZBalancer.parse({}), ...balancerSettings(ZBalancer.parse({})) },
    service: { ...ZService.parse({}), replicas: 3, cpus: 0.2 },
    downstream: ZDownstream.parse({}),
    broker: ZBroker.parse({}),
    storage: ZStorage.parse({}),
    cache: ZCache.parse({}),
    placement: { strategy: "spread", pin: {}, loadgen: { separate: false } },
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
    // The request, the mix and the script are sent only when chosen as the traffic (TRAFFIC).
    request: { method: "GET", path: "/", body: "" },
    requests: [{ weight: 1, method: "GET", path: "/", body: "" }],
    script: "",
  },
  faults: [],
};

/** The form's first values: `/runs/new?kind=image` opens it on the user's own image, sending one request. */
export function initialForm(kind?: string): RunFormValues {
  const v = structuredClone(DEFAULT_FORM);
  if (kind === "image") {
    v.topology.service.kind = "image";
    v.traffic = "request";
  }
  return v;
}

/**
 * What a user's image gets from the lab for the dependencies on screen (the components' serviceEnv:
 * DATABASE_URL and PG*, CASSANDRA_*, KAFKA_*, AMQP_*, REDIS_*), by name; empty while the topology is invalid.
 */
export function dependencyEnvOf(v: RunFormValues): Record<string, string> {
  const topology = ZTopology.safeParse(toRunInput(v).topology);
  return topology.success ? serviceEnv({ topology: topology.data }) : {};
}

/**
 * A field or section is shown while the value at `path` is (or is not) one of the values; `any`
 * while one of its alternatives holds (@scalelab/scenarios/components FormCondition, with typed paths).
 */
export type Condition = { path: FormPath; in: readonly unknown[]; negate?: true } | { any: readonly (Condition | readonly Condition[])[] };
const when = (path: FormPath, ...values: unknown[]): Condition => ({ path, in: values });

/** A field of the form (the components declare theirs, @scalelab/scenarios/components FormFieldSpec), with typed paths. */
export type FieldSpec = Omit<FormFieldSpec, "path" | "when" | "deps"> & {
  path: FormPath;
  when?: Condition | readonly Condition[];
  deps?: FormPath[];
  /** Enum values not offered while a condition holds (the built-in endpoints for a user's image). */
  omit?: readonly { when: Condition; values: readonly string[] }[];
};

export type SectionSpec = Omit<FormSectionSpec, "when" | "object" | "fields" | "order" | "optional"> & {
  when?: Condition;
  object?: FormPath;
  optional?: { label: string; when: Condition };
  fields: FieldSpec[];
};

const K6 = when("workload.loadgen", "k6");
const WRK = when("workload.loadgen", "wrk");
const IMAGE = when("topology.service.kind", "image");
const REQUEST = when("traffic", "request");
/** The placement fields: on an engine other than the lab's own. */
export const REMOTE_ENGINE: Condition = { path: "engine", in: [LOCAL_ENGINE], negate: true };

/** Shown under the script field, whatever its errors. */
export const SCRIPT_NOTE =
  "The target's URL is in __ENV.SCALELAB_TARGET; VUs and duration below apply unless the script declares its own scenarios.";

/** The form-only text fields of a user's image, after its health path in the Service section. */
const IMAGE_FIELDS: FieldSpec[] = [
  {
    path: "text.env",
    id: "env",
    label: "Environment",
    wide: true,
    placeholder: "LOG_LEVEL=info\nWORKERS=2",
    hint: "One NAME=value per line (no quotes; # starts a comment). The lab also sets PORT, SCALELAB_REPLICA and the dependencies' addresses.",
    textarea: { rows: 3, code: true },
    when: IMAGE,
  },
  {
    path: "text.command",
    id: "command",
    label: "Command",
    wide: true,
    placeholder: "gunicorn\n--bind=0.0.0.0:8080\napp:app",
    hint: "One argv item per line, run without a shell. Empty = the image's own CMD.",
    textarea: { rows: 3, code: true },
    when: IMAGE,
  },
];

/** The components' sections with the form-only fields placed in them. */
function withFormFields(sections: readonly SectionSpec[]): SectionSpec[] {
  return sections.map((s) => {
    if (s.key !== "service") return s;
    const at = s.fields.findIndex((f) => f.path === "topology.service.healthPath") + 1;
    if (at === 0) throw new Error("no field topology.service.healthPath in the Service section");
    return { ...s, fields: [...s.fields.slice(0, at), ...IMAGE_FIELDS, ...s.fields.slice(at)] };
  });
}

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
  ...withFormFields(FORM_SECTIONS as unknown as readonly SectionSpec[]),
  {
    key: "workload",
    title: "Workload",
    fields: [
      {
        path: "traffic",
        id: "traffic",
        label: "Traffic",
        wide: true,
        segmented: true,
        options: { endpoint: "Endpoint (testbed)", request: "One request", requests: "Request mix", script: "k6 script" },
        // The built-in endpoints are the testbed's: the schema refuses them for a user's image; wrk sends one request template.
        omit: [
          { when: IMAGE, values: ["endpoint"] },
          { when: WRK, values: ["requests", "script"] },
        ],
      },
      {
        path: "workload.endpoint",
        id: "endpoint",
        label: "Endpoint",
        wide: true,
        when: when("traffic", "endpoint"),
        options: {
          hostname: "hostname — returns the replica's host name",
          cpu: "cpu — JSON-encodes a random string N times",
          products: "products — reads products from the store",
          activity: "activity — writes an activity row to the store",
          key: "key — reads the hot key (from Redis)",
        },
      },
      {
        path: "workload.request.method",
        id: "method",
        label: "Method",
        options: Object.fromEntries(HTTP_METHODS.map((m) => [m, m])),
        when: REQUEST,
        deps: ["workload.request.body"],
      },
      { path: "workload.request.path", id: "requestPath", label: "Path", hint: "With an optional ?query.", when: REQUEST },
      {
        path: "text.headers",
        id: "headers",
        label: "Headers",
        wide: true,
        placeholder: "Content-Type: application/json",
        hint: "One Name: value per line.",
        textarea: { rows: 2, code: true },
        when: REQUEST,
      },
      {
        path: "workload.request.body",
        id: "body",
        label: "Body",
        wide: true,
        placeholder: '{"item": "book"}',
        hint: "For POST, PUT or PATCH, sent as it is (give its Content-Type in Headers). Empty = none.",
        textarea: { rows: 3, code: true },
        when: REQUEST,
      },
      {
        path: "workload.script",
        id: "script",
        label: "Script",
        wide: true,
        placeholder: "import http from 'k6/http';\nexport default function () {\n  http.get(`${__ENV.SCALELAB_TARGET}/`);\n}",
        hint: "A k6 script (JavaScript), at most 256 KB.",
        textarea: { rows: 14, code: true, load: { accept: ".js,.mjs,text/javascript", maxBytes: LIMITS.scriptBytes.max } },
        when: when("traffic", "script"),
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
      {
        path: "workload.vus",
        id: "vus",
        label: "Virtual users",
        hint: "Connections looping. Optional with a k6 script.",
        when: [K6, when("model", "closed")],
      },
      // The schema names a missing load on workload.vus, hidden in the open model.
      {
        path: "workload.arrivalRate",
        id: "arrivalRate",
        label: "Arrival rate (req/s)",
        hint: "Optional with a k6 script.",
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
      {
        path: "text.thresholds",
        id: "thresholds",
        label: "Thresholds",
        wide: true,
        placeholder: "p95<250\nerrorRate<0.01",
        hint: "Optional, one per line, checked when the run ends: rps, p50 p90 p95 p99 max (ms), errorRate (0–1), checks (a k6 script's pass rate, 0–1) with < <= > >=.",
        textarea: { rows: 2, code: true },
      },
    ],
  },
  {
    key: "placement",
    title: "Placement",
    hint: "where the containers go on the engine's nodes",
    when: REMOTE_ENGINE,
    object: "topology.placement",
    fields: [
      {
        path: "topology.placement.strategy",
        id: "placementStrategy",
        label: "Strategy",
        segmented: true,
        options: { spread: "Spread", pack: "Pack" },
        hint: "Spread: a role's replicas on different nodes. Pack: fill a node's CPUs before the next.",
      },
      {
        path: "topology.placement.loadgen.separate",
        id: "loadgenSeparate",
        label: "Load generators on separate nodes",
        hint: "Only on nodes that run none of the system under test.",
      },
    ],
  },
];

const ALL_FIELDS = SECTIONS.flatMap((s) => s.fields.map((field) => ({ section: s, field })));

export const fieldId = (f: FieldSpec): string => f.id ?? f.path.replace(/^topology\./, "");

const TEXT_INFO: FieldInfo = { kind: "text", maxLength: null, optional: true };
/** The form-only fields' controls (the rest are read from the schema). */
const FORM_ONLY_INFO: Partial<Record<FormPath, FieldInfo>> = {
  model: { kind: "enum", options: LOAD_MODELS, optional: false },
  traffic: { kind: "enum", options: TRAFFIC, optional: false },
  "text.env": TEXT_INFO,
  "text.command": TEXT_INFO,
  "text.headers": TEXT_INFO,
  "text.thresholds": TEXT_INFO,
};

/** The field's control, range and default, from the schema (the load model, the traffic and the text fields are the form's own). */
export const infoOf = (path: FormPath): FieldInfo => FORM_ONLY_INFO[path] ?? fieldInfo(ZRunCreate, path);

/** "1–16", "0.05–64"; empty for fields without a range. */
export function rangeOf(info: FieldInfo): string {
  return info.kind === "number" && info.min !== null && info.max !== null ? `${info.min}–${info.max}` : "";
}

export type HostBounds = Pick<THostFacts, "cpus" | "memoryBytes">;

/**
 * The field's info with the range this host allows ("0.05–2" on a 2-core host rather than the
 * schema's "0.05–64"; the service's memory per replica for the run on screen when it parses).
 */
export function withHost(path: string, info: FieldInfo, host: HostBounds | undefined, v?: RunFormValues): FieldInfo {
  if (!host || info.kind !== "number") return info;
  const run = v ? ZRunCreate.safeParse({ ...toRunInput(v), faults: [] }) : undefined;
  const max = hostMax(path, host, run?.success ? run.data : undefined);
  if (max === undefined || (info.max !== null && info.max <= max)) return info;
  return { ...info, max: info.min !== null ? Math.max(info.min, max) : max };
}

/** A field's hint: the schema's range, then the form's words ("1–16 · Empty = no limit."). */
export const fieldHint = (info: FieldInfo, hint?: string): string => [rangeOf(info), hint].filter(Boolean).join(" · ");

type Conditions = Condition | readonly Condition[] | undefined;
const isList = (c: Conditions): c is readonly Condition[] => Array.isArray(c);

export const holds = (c: Conditions, v: RunFormValues): boolean => {
  if (c === undefined) return true;
  if (isList(c)) return c.every((one) => holds(one, v));
  if ("any" in c) return c.any.some((alt) => holds(alt, v));
  return c.in.includes(get(v, c.path)) !== Boolean(c.negate);
};

const conditionPaths = (c: Conditions): FormPath[] => {
  if (c === undefined) return [];
  if (isList(c)) return c.flatMap(conditionPaths);
  if ("any" in c) return c.any.flatMap(conditionPaths);
  return [c.path];
};

export const sectionShown = (s: SectionSpec, v: RunFormValues) => holds(s.when, v);

/** The checkbox of an optional section (`include.<key>`). */
export const includePath = (s: SectionSpec): FormPath => `include.${s.key}` as FormPath;
/** Whether the section's checkbox is offered: it is optional for these values. */
export const sectionOptional = (s: SectionSpec, v: RunFormValues): boolean => Boolean(s.optional && holds(s.optional.when, v));
/** A shown section's fields are on screen unless it is optional and left off. */
export const sectionOn = (s: SectionSpec, v: RunFormValues): boolean =>
  sectionShown(s, v) && (!sectionOptional(s, v) || get(v, includePath(s)) === true);

/** The fields on screen for these values, in order. */
export function visibleFields(v: RunFormValues): FieldSpec[] {
  return ALL_FIELDS.filter(({ section, field }) => sectionOn(section, v) && holds(field.when, v)).map(({ field }) => field);
}

/** A field as offered for these values: an enum without the values it omits now (the endpoints for a user's image). */
export function offeredField(f: FieldSpec, v: RunFormValues): FieldSpec {
  const omitted = new Set((f.omit ?? []).flatMap((o) => (holds(o.when, v) ? o.values : [])));
  if (omitted.size === 0 || !f.options) return f;
  return { ...f, subset: true, options: Object.fromEntries(Object.entries(f.options).filter(([value]) => !omitted.has(value))) };
}

export type FieldChange = { path: FormPath; value: unknown };

/**
 * What the form changes after the user picks `kind` at a kind field (KIND_FIELDS: a slot's kind,
 * the load generator): the fields of that component that depend on the kind (shown or hidden by
 * it, or offering values by it) go to the new kind's defaults (@scalelab/scenarios kindDefaults), so
 * nothing only the old kind takes stays behind (nginx's round_robin under HAProxy). A field the kind
 * has no default for goes back to the form's own first value (the VUs, the connections).
 */
export function kindChanges(path: FormPath, v: RunFormValues): FieldChange[] {
  if (!KIND_FIELDS.includes(path)) return [];
  const object = path.slice(0, path.lastIndexOf("."));
  const defaults = kindDefaults(path, String(get(v, path)));
  const dependent = ALL_FIELDS.filter(
    ({ field }) => field.path !== path && field.path.startsWith(`${object}.`) && conditionPaths(field.when).includes(path),
  ).map(({ field }) => field.path);
  return [...new Set(dependent)].map((p) => {
    const key = p.slice(object.length + 1);
    return { path: p, value: key in defaults ? defaults[key] : get(DEFAULT_FORM, p) };
  });
}

/** Enum fields on screen whose value is not offered any more (the traffic after a switch to wrk), with the first value offered. */
export function notOffered(v: RunFormValues): FieldChange[] {
  return visibleFields(v).flatMap((f) => {
    const offered = offeredField(f, v);
    if (offered === f || !offered.options) return [];
    const values = Object.keys(offered.options);
    const value: unknown = get(v, f.path);
    return values.includes(String(value)) || values.length === 0 ? [] : [{ path: f.path, value: values[0] }];
  });
}

/** The fields to re-check when this one changes: those it shows or hides, and its declared dependants. */
export function depsOf(f: FieldSpec): FormPath[] {
  const shown = ALL_FIELDS.filter(({ section, field }) =>
    [...conditionPaths(field.when), ...conditionPaths(section.when), ...conditionPaths(section.optional?.when)].includes(f.path),
  ).map(({ field }) => field.path);
  return [...new Set([...(f.deps ?? []), ...shown])];
}

/** The paths of the request mix's rows on screen (request-mix.tsx), whose issues show on the rows. */
export function mixFieldPaths(v: RunFormValues): string[] {
  if (v.traffic !== "requests") return [];
  const rows = (v.workload.requests ?? []).flatMap((_, i) =>
    ["weight", "method", "path", "body"].map((k) => `workload.requests.${i}.${k}`),
  );
  return ["workload.requests", ...rows];
}

function unset(target: object, path: string): void {
  const keys = path.split(".");
  const last = keys.pop()!;
  let at: unknown = target;
  for (const k of keys) at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[k] : undefined;
  if (typeof at === "object" && at !== null) delete (at as Record<string, unknown>)[last];
}

/** The line each entry of the text fields came from (./form-text.ts), to place the schema's issues on it. */
export type TextLines = {
  env: Record<string, number>;
  command: Record<number, number>;
  headers: Record<string, number>;
  thresholds: Record<number, number>;
};

/**
 * The API body of what is on screen, with the issues of the text fields' lines: hidden fields and
 * sections are left out, so the schema's defaults apply to them; only the chosen traffic is sent;
 * the text fields become the service's env and command and the request's headers (none when
 * empty); an empty body is no body; each fault with only the parameters its action takes, none when empty.
 */
export function runInputOf(v: RunFormValues): { body: TRunCreateInput; issues: FieldIssue[]; lines: TextLines } {
  const { model: _model, traffic, text, include: _include, faults, ...body } = structuredClone(v);
  const visible = new Set<string>(visibleFields(v).map((f) => f.path));
  for (const s of SECTIONS) if (s.object && !sectionOn(s, v)) unset(body, s.object);
  for (const { field } of ALL_FIELDS) if (!visible.has(field.path)) unset(body, field.path);
  const issues: FieldIssue[] = [];
  const lines: TextLines = { env: {}, command: {}, headers: {}, thresholds: {} };
  const thresholds = parseThresholds(text.thresholds);
  lines.thresholds = thresholds.lines;
  issues.push(...thresholds.issues.map((message) => ({ path: "text.thresholds", message })));

  const service = body.topology.service;
  if (visible.has("text.env")) {
    const env = parseEnv(text.env);
    lines.env = env.lines;
    issues.push(...env.issues.map((message) => ({ path: "text.env", message })));
    if (Object.keys(env.value).length > 0) service.env = env.value;
  }
  if (visible.has("text.command")) {
    const command = parseCommand(text.command);
    lines.command = command.lines;
    issues.push(...command.issues.map((message) => ({ path: "text.command", message })));
    if (command.value.length > 0) service.command = command.value;
  }

  const w = body.workload;
  if (traffic === "request" && w.request) {
    const headers = parseHeaders(text.headers);
    lines.headers = headers.lines;
    issues.push(...headers.issues.map((message) => ({ path: "text.headers", message })));
    if (Object.keys(headers.value).length > 0) w.request.headers = headers.value;
    if (!w.request.body) delete w.request.body;
  } else {
    delete w.request;
  }
  if (traffic === "requests" && w.requests) w.requests = w.requests.map(({ body: sent, ...r }) => (sent ? { ...r, body: sent } : r));
  else delete w.requests;

  const name = v.name.trim();
  if (name) body.name = name;
  else unset(body, "name");
  if (body.engine === LOCAL_ENGINE) unset(body, "engine");
  const placement = body.topology.placement as Partial<PlacementFormValue> | undefined;
  if (placement?.pin) {
    // A role pinned before the topology lost it (a store switched off) is not sent.
    const roles = new Set(pinnableRoles(body as TRunCreateInput));
    const pinned = Object.entries(placement.pin).filter(([role, node]) => node !== "" && roles.has(role));
    if (pinned.length > 0) placement.pin = Object.fromEntries(pinned);
    else delete placement.pin;
  }
  return {
    body: {
      ...body,
      ...(faults.length > 0 && { faults: faults.map(faultBody) }),
      ...(thresholds.value.length > 0 && { thresholds: thresholds.value }),
    } as TRunCreateInput,
    issues,
    lines,
  };
}

/** The API body of what is on screen (runInputOf without its issues). */
export const toRunInput = (v: RunFormValues): TRunCreateInput => runInputOf(v).body;

/** The roles a fault can target in the topology on screen, whatever its faults; null while the rest of the form is invalid. */
export function faultRolesOf(v: RunFormValues): Record<string, FaultableRole> | null {
  const run = ZRunCreate.safeParse({ ...toRunInput(v), faults: [] });
  return run.success ? faultableRoles(run.data) : null;
}

/** The body's objects and lists the form writes as text: an issue inside one goes under its text field, naming the line. */
const TEXT_FIELDS = [
  { prefix: "topology.service.env", field: "text.env", label: "Environment", lines: "env" },
  { prefix: "topology.service.command", field: "text.command", label: "Command", lines: "command" },
  { prefix: "workload.request.headers", field: "text.headers", label: "Headers", lines: "headers" },
  { prefix: "thresholds", field: "text.thresholds", label: "Thresholds", lines: "thresholds" },
] as const;

/**
 * Where an issue of the body goes on the form: an entry of the env, the command or the headers
 * under its text field with its line ("Environment, line 2: service.env.PORT is set by the lab");
 * a missing request (a user's image without one) under the traffic choice; anything else at its path.
 */
export function placeIssue(issue: FieldIssue, lines: TextLines): FieldIssue {
  if (issue.path === "workload.request") return { path: "traffic", message: issue.message };
  for (const t of TEXT_FIELDS) {
    if (issue.path !== t.prefix && !issue.path.startsWith(`${t.prefix}.`)) continue;
    const rest = issue.path.slice(t.prefix.length + 1);
    // A threshold's issue names its field (thresholds.0.metric): its line is the threshold's.
    const entry = t.lines === "thresholds" ? rest.split(".")[0]! : rest;
    const line = entry ? (lines[t.lines] as Record<string, number>)[entry] : undefined;
    return { path: t.field, message: line ? `${t.label}, line ${line}: ${issue.message}` : issue.message };
  }
  return issue;
}

/** How messages name a field: its body path, without `topology.` ("service.replicas", "workload.vus"). */
const apiName = (path: string): string => path.replace(/^topology\./, "");

/** Each field's section and label by path (a path drawn once per kind, the balancer's algorithm, has one label). */
const FIELD_AT = new Map<string, { section: SectionSpec; field: FieldSpec }>();
for (const at of ALL_FIELDS) if (!FIELD_AT.has(at.field.path)) FIELD_AT.set(at.field.path, at);

const labelCount = new Map<string, number>();
for (const { field } of FIELD_AT.values()) labelCount.set(field.label, (labelCount.get(field.label) ?? 0) + 1);

/** The label of the field at `path` ("Replicas"); undefined for a path the form has no field for. */
export const labelOf = (path: string): string | undefined => FIELD_AT.get(path)?.field.label;

/** A field named inside another's message: its label, with its section's title when another section has the same label ("Balancer kind"). */
function namedLabel(path: string): string {
  const { section, field } = FIELD_AT.get(path)!;
  if (labelCount.get(field.label) === 1) return field.label;
  const lower = /^[A-Z][a-z]/.test(field.label) ? field.label[0]!.toLowerCase() + field.label.slice(1) : field.label;
  return `${section.title} ${lower}`;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The body's fields as messages name them: with or without `topology.`. */
const NAMED = new Map(
  [...FIELD_AT.keys()]
    .filter((p) => p.startsWith("topology.") || p.startsWith("workload."))
    .flatMap((p) => [p, apiName(p)].map((name) => [name, p] as const)),
);
/** One pass over the message, longest names first (a label put in is never read again). */
const NAMES = new RegExp(
  `(?<![\\w.])(${[...NAMED.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|")})(?![\\w])`,
  "g",
);

/**
 * An issue in the form's words: the fields its message names by their API paths are named by
 * their labels ("service.replicas must be between 1 and 16" under Replicas reads "Replicas must be
 * between 1 and 16"). The path stays: the issue still lands on its field. The API keeps its paths.
 */
export function labelIssue(issue: FieldIssue): FieldIssue {
  const message = issue.message.replace(NAMES, (name: string) => {
    const path = NAMED.get(name)!;
    return path === issue.path ? FIELD_AT.get(path)!.field.label : namedLabel(path);
  });
  return message === issue.message ? issue : { path: issue.path, message };
}

/** The server's issues about the body these values make, placed on the form's fields, in the form's words. */
export const placeIssues = (issues: readonly FieldIssue[], v: RunFormValues): FieldIssue[] => {
  const { lines } = runInputOf(v);
  return issues.map((i) => labelIssue(placeIssue(i, lines)));
};

/**
 * Checks the body the form would send with ZRunCreate; issues come back at the body's paths, which
 * are the fields' names, those of the text fields under them with their lines.
 */
export const runFormResolver: Resolver<RunFormValues, unknown, TRunCreateInput> = async (values) => {
  const { body, issues, lines } = runInputOf(values);
  const parsed = ZRunCreate.safeParse(body);
  const all = [...issues, ...(parsed.success ? [] : toFieldIssues(parsed.error.issues).map((i) => labelIssue(placeIssue(i, lines))))];
  if (all.length === 0) return { values: body, errors: {} };
  const errors: FieldErrors<RunFormValues> = {};
  // The first issue of a path wins, as the field shows one.
  for (const i of all) {
    const path = i.path || "root.schema";
    if (!get(errors, path)) set(errors, path, { type: "validation", message: i.message });
  }
  return { values: {}, errors };
};

/**
 * "How does it scale?": the scale-my-service preset's patch from the run's body: the service
 * (without its replicas: the preset sweeps them), its store, broker and cache, and the workload.
 */
export function scalePatch(body: TRunCreateInput): Record<string, unknown> {
  const t = body.topology ?? {};
  const { replicas: _replicas, ...service } = t.service ?? {};
  // What the load sends comes from the form; how much load, from the preset (32 k6 VUs, 20 s a run): the
  // form's few VUs would leave 4 replicas idle and read as a service that does not scale.
  const w = body.workload ?? {};
  const traffic = Object.fromEntries(
    (["endpoint", "protocol", "request", "requests", "script", "requestTimeoutMs"] as const).flatMap((k) =>
      w[k] === undefined ? [] : [[k, w[k]]],
    ),
  );
  return {
    topology: {
      service,
      ...(t.storage && { storage: t.storage }),
      ...(t.broker && { broker: t.broker }),
      ...(t.cache && { cache: t.cache }),
    },
    workload: traffic,
  };
}

/**
 * Where an issue of a preset run goes: the experiment's base (`base.topology.service.image`) on
 * the run's field (through placeIssue); the rest (the sweep's values, the preset) in the form's own error.
 */
export function placePresetIssue(issue: FieldIssue, lines: TextLines): FieldIssue {
  const path = issue.path.replace(/^base\./, "");
  return /^(topology|workload)\./.test(path)
    ? labelIssue(placeIssue({ path, message: issue.message }, lines))
    : { path: "", message: issue.message };
}

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
