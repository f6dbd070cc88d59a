import { TRunDefinition as TRunCreate } from "../contract/definition";
import { FaultableRole } from "../contract/faults";
import { LOADGEN_ROLE } from "../names";
import { loadgen } from "../loadgen/component";
import { nginx } from "./nginx";
import { haproxy } from "./haproxy";
import { cache } from "./cache";
import { cassandra } from "./cassandra";
import { consumer, logs } from "./downstream";
import { kafka } from "./kafka";
import { rabbitmq } from "./rabbitmq";
import { postgres } from "./postgres";
import { service } from "./service";
import { storage } from "./storage";
import { broker } from "./broker";
import { balancer } from "./balancer";
import { foldForm } from "./form";
import { servicePort } from "./service/config";
import { ComponentModule, FigureDef, FigureInput, RoleDecl, RolePresentation, RunIssue, SetupField, Slot } from "./types";

/**
 * Every component kind, in start order within a tier. A new kind is one folder of
 * ./components plus its image context, listed here; the contract, the plan, the diagram, the
 * compare page and the form fold over this list.
 */
export const COMPONENTS: readonly ComponentModule[] = [
  storage,
  postgres,
  cassandra,
  broker,
  kafka,
  rabbitmq,
  cache,
  service,
  logs,
  consumer,
  balancer,
  nginx,
  haproxy,
  loadgen,
];

/** Every component's figures for one second, merged. */
export function componentFigures(input: FigureInput, run: TRunCreate): Record<string, number> {
  return Object.assign({}, ...COMPONENTS.map((c) => c.figures?.(input, run) ?? {}));
}

/** The roles of the run's components, with counts and limits, without planning. */
export const runRoles = (run: TRunCreate): (RoleDecl & { component: string })[] =>
  COMPONENTS.flatMap((c) => c.roles(run).map((r) => ({ ...r, component: c.kind })));

/** How a role is shown; a role no component presents is shown by its name. */
export function rolePresentation(role: string): RolePresentation {
  for (const c of COMPONENTS) {
    const p = c.presentation?.[role];
    if (p) return p;
  }
  return { one: role, many: role, column: 3, color: "#495057", label: "title" };
}

/** "replica (app)", "replicas (app)", "broker (kafka)": a role with its count's noun. */
export function roleTitle(role: string, count: number): string {
  const p = rolePresentation(role);
  return `${count === 1 ? p.one : p.many} (${role})`;
}

/**
 * The roles of the run's topology a fault can target (the load generators are not part of the
 * system under test): how many containers each has and whether it takes incoming connections.
 */
export function faultableRoles(run: TRunCreate): Record<string, FaultableRole> {
  const roles: Record<string, FaultableRole> = {};
  for (const r of runRoles(run)) {
    if (r.role === LOADGEN_ROLE || r.count === 0) continue;
    const into = (roles[r.role] ??= { count: 0, title: "", incoming: false });
    into.count += r.count;
    into.incoming ||= r.incoming;
  }
  for (const [role, r] of Object.entries(roles)) r.title = roleTitle(role, r.count);
  return roles;
}

/** Every component's rules across components, for the run, and the names a user's service may not set. */
export const runIssues = (run: TRunCreate): RunIssue[] => [...COMPONENTS.flatMap((c) => c.rules?.(run) ?? []), ...labEnvIssues(run)];

/** The topology field a slot's component is configured by, for messages. */
const SLOT_FIELDS: Partial<Record<Slot, string>> = {
  storage: "topology.storage",
  broker: "topology.broker",
  cache: "topology.cache",
};

/** What a user's service gets to reach the run's components (their `serviceEnv`), merged, with the component that sets each name. */
export function serviceEnvSources(run: Pick<TRunCreate, "topology">): Record<string, { value: string; component: ComponentModule }> {
  const out: Record<string, { value: string; component: ComponentModule }> = {};
  for (const c of COMPONENTS) for (const [name, value] of Object.entries(c.serviceEnv?.(run) ?? {})) out[name] = { value, component: c };
  return out;
}

/** What a user's service gets to reach the run's components, merged. */
export const serviceEnv = (run: Pick<TRunCreate, "topology">): Record<string, string> =>
  Object.fromEntries(Object.entries(serviceEnvSources(run)).map(([name, { value }]) => [name, value]));

/** A name in service.env that the lab sets for the run's dependencies would be silently replaced (or replace the lab's): refuse it. */
function labEnvIssues(run: TRunCreate): RunIssue[] {
  const own = run.topology.service.kind === "image" ? Object.keys(run.topology.service.env ?? {}) : [];
  if (own.length === 0) return [];
  const lab = serviceEnvSources(run);
  return own.flatMap((name) => {
    const from = lab[name];
    if (!from) return [];
    const field = SLOT_FIELDS[from.component.slot] ?? `topology.${from.component.slot}`;
    return [
      {
        path: ["topology", "service", "env", name],
        message: `topology.service.env.${name} is set by the lab: the run's ${from.component.kind} (${field}) gives it ${name}=${from.value}; leave it out or use another name`,
      },
    ];
  });
}

/** What clients need to reach the run's components, merged; only those of `slots` when given. */
export function clientEnv(run: TRunCreate, slots: readonly Slot[] = []): Record<string, string> {
  const from = slots.length === 0 ? COMPONENTS : COMPONENTS.filter((c) => slots.includes(c.slot));
  return Object.assign({}, ...from.map((c) => c.clientEnv?.(run) ?? {}));
}

/** A value as the setup table shows it: long ones cut. */
const shortValue = (v: string) => (v.length > 80 ? `${v.slice(0, 80)}…` : v);

/**
 * The service's Environment row: a user's image's own variables, then those the lab sets (the
 * dependencies' addresses, PORT and the replica's name). Built here because the lab's half folds
 * over every component.
 */
const ENVIRONMENT_ROW: SetupField = {
  key: "environment",
  label: "Environment",
  show: (run) => {
    const s = run.topology.service;
    if (s.kind !== "image") return "— (your image only)";
    const own = Object.entries(s.env ?? {}).map(([k, v]) => `${k}=${shortValue(v)}`);
    const lab = [
      ...Object.entries(serviceEnv(run)).map(([k, v]) => `${k}=${shortValue(v)}`),
      `PORT=${servicePort(s)}`,
      "SCALELAB_REPLICA=app-<i>",
    ];
    return `yours: ${own.length > 0 ? own.join(", ") : "none"}; the lab's: ${lab.join(", ")}`;
  },
};

/** The compare page's setup rows, in registry order (the service's Environment row after its own). */
export const SETUP_FIELDS: readonly SetupField[] = COMPONENTS.flatMap((c) => [
  ...(c.setup ?? []),
  ...(c.slot === "service" ? [ENVIRONMENT_ROW] : []),
]);

/** The diagram's links between roles, as the components declare them. */
export const DIAGRAM_EDGES = COMPONENTS.flatMap((c) => c.edges ?? []);

/** The run form's component sections, in order (../components/form.ts). */
export const FORM_SECTIONS = foldForm(COMPONENTS.flatMap((c) => (c.form ? [c.form] : [])));

/** Every per-second figure a component can report; charts and tables read their labels here. */
export const FIGURE_DEFS: readonly FigureDef[] = COMPONENTS.flatMap((c) => c.figureDefs ?? []);
