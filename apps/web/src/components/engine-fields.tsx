"use client";

import { LOCAL_ENGINE, type TEngineView } from "@scalelab/scenarios/contract";
import { nodeTakesContainers } from "@scalelab/scenarios/plan";
import { get, useFormContext, useFormState } from "react-hook-form";
import { engineOptionLabel } from "~/lib/engine-form";
import type { FormPath, RunFormValues } from "~/lib/run-form";
import { FieldFrame } from "./form-field";

function useFieldErrors(path: FormPath): string[] {
  const { errors } = useFormState<RunFormValues>();
  const message = (get(errors, path) as { message?: string } | undefined)?.message;
  return message ? [message] : [];
}

/** The engine a run goes to: shown only when the lab knows more than its own (engines.list). */
export function EngineSection({ engines }: { engines: readonly TEngineView[] }) {
  const { register } = useFormContext<RunFormValues>();
  const errors = useFieldErrors("engine");
  const id = "f-engine";
  return (
    <section className="panel" data-testid="section-engine">
      <h2>
        Engine<span className="h2-hint"> — where the run's containers run</span>
      </h2>
      <fieldset className="fields">
        <FieldFrame
          id={id}
          label="Engine"
          wide
          hint="local is this host's Docker engine; a Swarm cluster spreads the containers over its nodes (Placement, below)."
          errors={errors}
          errorAttrs={{ testId: "error-engine" }}
        >
          <select
            id={id}
            data-testid="field-engine"
            aria-invalid={errors.length > 0}
            aria-describedby={errors.length > 0 ? `${id}-error` : `${id}-hint`}
            {...register("engine", { deps: ["topology.placement.strategy"] })}
          >
            {engines.map((e) => (
              <option key={e.name} value={e.name}>
                {engineOptionLabel(e)}
              </option>
            ))}
          </select>
        </FieldFrame>
      </fieldset>
    </section>
  );
}

function PinField({ role, nodes }: { role: string; nodes: readonly string[] }) {
  const { register } = useFormContext<RunFormValues>();
  const path = `topology.placement.pin.${role}` as FormPath;
  const errors = useFieldErrors(path);
  const id = `f-pin-${role}`;
  return (
    <FieldFrame id={id} label={`Pin ${role} to`} errors={errors} errorAttrs={{ testId: `error-pin-${role}` }}>
      <select
        id={id}
        data-testid={`field-pin-${role}`}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length > 0 ? `${id}-error` : undefined}
        {...register(path)}
      >
        <option value="">any node</option>
        {nodes.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

/** One select per role of the run on screen: the node its containers all go to, or any. */
export function PinFields({ engine, engines, roles }: { engine: string; engines: readonly TEngineView[]; roles: readonly string[] }) {
  if (engine === LOCAL_ENGINE) return null;
  const nodes = (engines.find((e) => e.name === engine)?.nodes ?? []).filter(nodeTakesContainers).map((n) => n.name);
  return (
    <>
      {roles.map((role) => (
        <PinField key={role} role={role} nodes={nodes} />
      ))}
    </>
  );
}

/** The form paths these controls show errors for (the form's error box leaves them to the controls). */
export const enginePaths = (roles: readonly string[]): string[] => ["engine", ...roles.map((r) => `topology.placement.pin.${r}`)];
