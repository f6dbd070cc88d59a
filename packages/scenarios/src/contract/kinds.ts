import { z } from "zod";
import { explicitBalancer, TBalancer } from "../components/balancer/config";
import { TOPOLOGY_SLOTS } from "../components/slots";
import { ZWorkload } from "./workload";

/**
 * The fields whose value picks a component's kind: every topology slot's `kind` and the load
 * generator. A form that changes one resets the fields that depend on it to the new kind's defaults
 * (`kindDefaults`), so a value only the old kind takes (nginx's `round_robin` under HAProxy) never stays.
 */
export const KIND_FIELDS: readonly string[] = [
  ...Object.entries(TOPOLOGY_SLOTS).flatMap(([slot, schema]) => ("kind" in objectOf(schema).shape ? [`topology.${slot}.kind`] : [])),
  "workload.loadgen",
];

/** The object schema under optional/default/prefault wrappers. */
function objectOf(schema: z.ZodType): z.ZodObject {
  let s: z.ZodType = schema;
  while (!(s instanceof z.ZodObject)) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodPrefault) s = s.unwrap() as z.ZodType;
    else throw new Error("not an object schema");
  }
  return s;
}

const PARENTS: Record<string, z.ZodObject> = {
  ...Object.fromEntries(Object.entries(TOPOLOGY_SLOTS).map(([slot, schema]) => [`topology.${slot}`, objectOf(schema)])),
  workload: ZWorkload,
};

/** Defaults a kind has beyond its schema's (the balancer's algorithm and health knobs depend on its kind). */
const KIND_FILLERS: Record<string, (value: Record<string, unknown>) => Record<string, unknown>> = {
  "topology.balancer": (b) => explicitBalancer(b as TBalancer),
};

/**
 * The object a kind field belongs to (`topology.balancer` for `topology.balancer.kind`), with every
 * default of that kind written out; fields without a default are absent. E.g. haproxy's balancer:
 * `{kind: "haproxy", algorithm: "roundrobin", maxFails: 1, failTimeoutSeconds: 10, retryNextUpstream: true}`.
 */
export function kindDefaults(kindPath: string, kind: string): Record<string, unknown> {
  if (!KIND_FIELDS.includes(kindPath)) throw new Error(`${kindPath} is not a kind field (${KIND_FIELDS.join(", ")})`);
  const at = kindPath.lastIndexOf(".");
  const parent = kindPath.slice(0, at);
  const key = kindPath.slice(at + 1);
  const schema = PARENTS[parent]!;
  // The plain shape: its defaults without the cross-field rules (a user's image needs an image to be valid, not to have defaults).
  const parsed = z.object(schema.shape).safeParse({ [key]: kind });
  if (!parsed.success) throw new Error(`${kind} is not a value of ${kindPath}: ${parsed.error.issues[0]?.message ?? ""}`);
  const value = parsed.data as Record<string, unknown>;
  return KIND_FILLERS[parent]?.(value) ?? value;
}
