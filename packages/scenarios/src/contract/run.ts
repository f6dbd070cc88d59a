import { z } from "zod";
import { faultableRoles, runIssues } from "../components/registry";
import { LIMITS, strict, text } from "./fields";
import { faultIssues, ZFaults } from "./faults";
import { ZTopology } from "./topology";
import { ZWorkload } from "./workload";
import { thresholdIssues, ZThresholds } from "./thresholds";
import { TRunDefinition } from "./definition";
import { ZRegressionSettings } from "./regression";
import { LOCAL_ENGINE, ZEngineRef } from "./engines";
import { runRoles } from "../components/registry";

/**
 * The shared contract of Scalelab: the browser form, tRPC, REST and the worker all parse
 * with these schemas. Field names are part of the public REST API: add, never rename.
 * Bounds that depend on the Docker host (CPU count, memory) are checked separately by
 * `validateAgainstHost` in ./host.ts.
 */

export const ZRunCreate = strict("", {
  name: text("name", LIMITS.name.max).optional(),
  /** The engine the run's containers run on (./engines.ts): "local", the lab's own, or a Swarm cluster's name. */
  engine: ZEngineRef.default(LOCAL_ENGINE),
  topology: ZTopology,
  workload: ZWorkload,
  /** The fault timeline (./faults.ts): container and network faults at given seconds of the load. */
  faults: ZFaults.default([]),
  /** Pass/fail checks of the whole-run figures (./thresholds.ts), evaluated when the run succeeds into summary.thresholds. */
  thresholds: ZThresholds.default([]),
  /** The check against the baseline of its name (./regression.ts); the defaults without it. */
  regression: ZRegressionSettings.optional(),
}).superRefine((run, ctx) => {
  if (run.faults.length > 0) {
    for (const { path, message } of faultIssues(run.faults, faultableRoles(run), run.workload.durationSeconds)) {
      ctx.addIssue({ code: "custom", path, message });
    }
  }
  for (const { path, message } of thresholdIssues(run.thresholds, run.workload)) ctx.addIssue({ code: "custom", path, message });
  for (const { path, message } of runIssues(run)) ctx.addIssue({ code: "custom", path, message });
  const pin = run.topology.placement?.pin;
  if (pin) {
    const roles = new Set(
      runRoles(run)
        .filter((r) => r.count > 0)
        .map((r) => r.role),
    );
    for (const role of Object.keys(pin)) {
      if (!roles.has(role)) {
        ctx.addIssue({
          code: "custom",
          path: ["topology", "placement", "pin", role],
          message: `topology.placement.pin.${role}: this run has no role ${role} (its roles: ${[...roles].join(", ")})`,
        });
      }
    }
  }
});
export type TRunCreate = z.infer<typeof ZRunCreate>;
export type TRunCreateInput = z.input<typeof ZRunCreate>;

// The components take the run as TRunDefinition (./definition.ts): it must stay ZRunCreate's output.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _definitionMatches: Same<TRunCreate, TRunDefinition> = true;
void _definitionMatches;
