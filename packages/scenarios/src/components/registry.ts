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

/** Every component's rules across components, for the run. */
export const runIssues = (run: TRunCreate): RunIssue[] => COMPONENTS.flatMap((c) => c.rules?.(run) ?? []);

/** What clients need to reach the run's components, merged; only those of `slots` when given. */
export function clientEnv(run: TRunCreate, slots: readonly Slot[] = []): Record<string, string> {
  const from = slots.length === 0 ? COMPONENTS : COMPONENTS.filter((c) => slots.includes(c.slot));
  return Object.assign({}, ...from.map((c) => c.clientEnv?.(run) ?? {}));
}

/** The compare page's setup rows, in registry order. */
export const SETUP_FIELDS: readonly SetupField[] = COMPONENTS.flatMap((c) => c.setup ?? []);

/** The diagram's links between roles, as the components declare them. */
export const DIAGRAM_EDGES = COMPONENTS.flatMap((c) => c.edges ?? []);

/** The run form's component sections, in order (../components/form.ts). */
export const FORM_SECTIONS = foldForm(COMPONENTS.flatMap((c) => (c.form ? [c.form] : [])));

/** Every per-second figure a component can report; charts and tables read their labels here. */
export const FIGURE_DEFS: readonly FigureDef[] = COMPONENTS.flatMap((c) => c.figureDefs ?? []);
