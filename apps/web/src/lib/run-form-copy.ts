import type { TRunCreateInput } from "@scalelab/scenarios/contract";
import { DEFAULT_FORM, type RunFormValues, type Traffic } from "./run-form";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The new-run form filled with a run's definition ("Copy and change"): the inverse of runInputOf.
 * The definition is a parsed one (ZRunCreate, defaults filled in, as runs are stored): each of its
 * components replaces the form's (a field it lacks is one it left unset, e.g. no CPU limit), the
 * others keep the form's defaults; the service's environment
 * and command and the request's headers become the text fields' lines; the load model and the
 * traffic are the ones the definition uses; faults are the rows of the fault timeline, without
 * what happened to them (`actual`).
 */
export function formFromRun(def: TRunCreateInput): RunFormValues {
  const v = structuredClone(DEFAULT_FORM);
  v.name = def.name ?? "";
  v.engine = def.engine ?? v.engine;

  const topology = v.topology as unknown as Record<string, Obj>;
  for (const [key, value] of Object.entries(def.topology as Obj)) {
    if (!isObj(value)) continue;
    topology[key] = structuredClone(value);
  }
  const placement = def.topology.placement;
  v.topology.placement = {
    strategy: placement?.strategy ?? "spread",
    pin: { ...placement?.pin },
    loadgen: { separate: placement?.loadgen?.separate ?? false },
  };
  const service = topology.service as Obj & { env?: Record<string, string>; command?: string[] };
  v.text.env = Object.entries(service.env ?? {})
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
  v.text.command = (service.command ?? []).join("\n");
  delete service.env;
  delete service.command;
  const broker = topology.broker as { kind?: string } | undefined;
  v.include.broker = Boolean(def.topology.broker && broker?.kind && broker.kind !== "none");

  const w = structuredClone(def.workload) as Obj & TRunCreateInput["workload"];
  v.model = w.arrivalRate !== undefined ? "open" : "closed";
  const traffic: Traffic = w.script ? "script" : w.requests ? "requests" : w.request ? "request" : "endpoint";
  v.traffic = traffic;
  if (w.request) {
    const { headers, ...request } = w.request;
    v.text.headers = Object.entries(headers ?? {})
      .map(([name, value]) => `${name}: ${value}`)
      .join("\n");
    w.request = { ...request, body: request.body ?? "" };
  }
  if (w.requests) w.requests = w.requests.map((r) => ({ ...r, body: r.body ?? "" }));
  v.workload = { ...v.workload, ...w };

  v.text.thresholds = (def.thresholds ?? []).map((t) => `${t.metric}${t.op}${t.value}`).join("\n");
  v.faults = (def.faults ?? []).map((f) => {
    const { actual: _, ...fault } = f as typeof f & { actual?: unknown };
    return { ...structuredClone(fault), target: { role: fault.target.role, index: fault.target.index ?? 0 } };
  });
  return v;
}
