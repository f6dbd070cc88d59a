"use client";

import { HTTP_METHODS, LIMITS } from "@scalelab/scenarios/contract";
import { useEffect, type ReactNode } from "react";
import { get, useFieldArray, useFormContext, useFormState, type FieldError } from "react-hook-form";
import { numberFromInput, type RunFormValues } from "~/lib/run-form";

const FIELDS = ["weight", "method", "path", "body"] as const;

function Cell({
  label,
  htmlFor,
  invalid,
  grow,
  children,
}: {
  label: string;
  htmlFor: string;
  invalid: boolean;
  grow?: number;
  children: ReactNode;
}) {
  return (
    <div className={`field${invalid ? " invalid" : ""}`} style={grow ? { flex: grow, minWidth: 120 } : { width: 92 }}>
      <label htmlFor={htmlFor}>{label}</label>
      {children}
    </div>
  );
}

/**
 * The request mix (`workload.requests`, k6): one row per request with its weight, method, path and
 * optional body, bound with useFieldArray at the body's paths, so the schema's issues land on the
 * row's fields. Each iteration picks a row by weight.
 */
export function RequestMix() {
  const { control, register, trigger } = useFormContext<RunFormValues>();
  const { errors } = useFormState({ control, name: "workload.requests" });
  const { fields, append, remove } = useFieldArray({ control, name: "workload.requests" });

  // A row's issues depend on the others (the count) and on its method: re-check all of them when rows come and go.
  useEffect(() => {
    void trigger("workload.requests");
  }, [fields.length, trigger]);

  const rowError = (i: number, f: (typeof FIELDS)[number]) =>
    (get(errors, `workload.requests.${i}.${f}`) as FieldError | undefined)?.message;
  const listError = (get(errors, "workload.requests") as FieldError | undefined)?.message;
  const total = fields.length;

  return (
    <div className="field wide" data-testid="request-mix">
      <span className="label" id="request-mix-label">
        Requests
      </span>
      <div className="hint">Each iteration sends one of them, picked by weight (weight / the sum of the weights). k6 only.</div>
      <div className="stack" style={{ gap: 10 }} role="group" aria-labelledby="request-mix-label">
        {fields.map((field, i) => {
          const id = (name: string) => `f-mix-${i}-${name}`;
          const messages = [...new Set(FIELDS.map((f) => rowError(i, f)).filter((m): m is string => Boolean(m)))];
          return (
            <div key={field.id} data-testid={`mix-row-${i}`}>
              <div style={{ display: "flex", flexWrap: "wrap", gap: 8, alignItems: "flex-end" }}>
                <Cell label="Weight" htmlFor={id("weight")} invalid={Boolean(rowError(i, "weight"))}>
                  <input
                    id={id("weight")}
                    data-testid={`mix-weight-${i}`}
                    type="number"
                    min={LIMITS.weight.min}
                    max={LIMITS.weight.max}
                    step={1}
                    aria-invalid={Boolean(rowError(i, "weight")) || undefined}
                    {...register(`workload.requests.${i}.weight`, { setValueAs: numberFromInput })}
                  />
                </Cell>
                <Cell label="Method" htmlFor={id("method")} invalid={Boolean(rowError(i, "method"))}>
                  <select
                    id={id("method")}
                    data-testid={`mix-method-${i}`}
                    {...register(`workload.requests.${i}.method`, { deps: [`workload.requests.${i}.body`] })}
                  >
                    {HTTP_METHODS.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                </Cell>
                <Cell label="Path" htmlFor={id("path")} invalid={Boolean(rowError(i, "path"))} grow={2}>
                  <input
                    id={id("path")}
                    data-testid={`mix-path-${i}`}
                    type="text"
                    placeholder="/"
                    aria-invalid={Boolean(rowError(i, "path")) || undefined}
                    {...register(`workload.requests.${i}.path`)}
                  />
                </Cell>
                <Cell label="Body (optional)" htmlFor={id("body")} invalid={Boolean(rowError(i, "body"))} grow={3}>
                  <input
                    id={id("body")}
                    data-testid={`mix-body-${i}`}
                    type="text"
                    placeholder="none"
                    aria-invalid={Boolean(rowError(i, "body")) || undefined}
                    {...register(`workload.requests.${i}.body`)}
                  />
                </Cell>
                <button
                  type="button"
                  className="btn btn-danger"
                  data-testid={`remove-mix-${i}`}
                  aria-label={`Remove request ${i + 1}`}
                  disabled={total <= LIMITS.requests.min}
                  onClick={() => remove(i)}
                >
                  Remove
                </button>
              </div>
              {messages.length > 0 && (
                <div className="field-error" data-testid={`mix-error-${i}`} role="alert">
                  {messages.map((m) => (
                    <div key={m}>{m}</div>
                  ))}
                </div>
              )}
            </div>
          );
        })}
      </div>
      {listError && (
        <div className="field-error" data-testid="mix-error" role="alert">
          {listError}
        </div>
      )}
      <div style={{ marginTop: 8, display: "flex", gap: 12, alignItems: "center" }}>
        <button
          type="button"
          className="btn"
          data-testid="add-mix"
          disabled={total >= LIMITS.requests.max}
          onClick={() => append({ weight: 1, method: "GET", path: "/", body: "" })}
        >
          Add request
        </button>
        <span className="muted">
          {total} of at most {LIMITS.requests.max}
        </span>
      </div>
    </div>
  );
}
