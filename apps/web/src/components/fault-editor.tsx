"use client";

import { CONTAINER_FAULTS, FAULT_LIMITS, FAULT_PARAMS, faultLabel, NETWORK_FAULTS, type FaultableRole } from "@scalelab/scenarios/contract";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { get, useFieldArray, useFormContext, useFormState, type FieldError } from "react-hook-form";
import { labelLanes, nextFault, PARAM_DEFAULTS, roleOption, type FaultFormValue } from "~/lib/faults";
import { faultRolesOf, numberFromInput, type RunFormValues } from "~/lib/run-form";

type Param = "ms" | "jitterMs" | "percent" | "kbps";

const PARAM_LABELS: Record<Param, string> = { ms: "Delay (ms)", jitterMs: "Jitter ± (ms)", percent: "Loss (%)", kbps: "Bandwidth (kbps)" };

const FIELDS = ["at", "action", "target.role", "target.index", "ms", "jitterMs", "percent", "kbps"] as const;

const MARK_COLOR = "#c92a2a";

const LANE_PX = 16;
const LABEL_PX_PER_CHAR = 6.2;

/** The timeline's width in pixels, followed as the layout changes. */
function useWidth<T extends HTMLElement>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(entry.contentRect.width));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/** The bar 0…duration with a mark per fault at its second; a click on it adds a fault at that second. */
function FaultTimeline({
  faults,
  durationSeconds,
  invalid,
  onPick,
}: {
  faults: readonly FaultFormValue[];
  durationSeconds: number;
  invalid: (i: number) => boolean;
  onPick: (second: number) => void;
}) {
  const [ref, width] = useWidth<HTMLDivElement>(560);
  const span = Math.max(1, durationSeconds);
  const ticks = [...new Set([0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * span)))];
  const x = (t: number) => (Math.min(Math.max(Number.isFinite(t) ? t : 0, 0), span) / span) * width;
  const labels = faults.map(faultLabel);
  const lanes = labelLanes(
    faults.map((f, i) => ({ x: x(f.at), width: labels[i]!.length * LABEL_PX_PER_CHAR + 8 })),
    width,
  );
  const top = (Math.max(0, ...lanes.map((l) => l.lane)) + 1) * LANE_PX + 4;
  return (
    <div
      ref={ref}
      data-testid="fault-timeline"
      title="Click to add a fault at that second"
      onClick={(e) => {
        const box = e.currentTarget.getBoundingClientRect();
        onPick(Math.min(span - 1, Math.max(0, Math.round(((e.clientX - box.left) / box.width) * span))));
      }}
      style={{ position: "relative", height: top + 30, margin: "4px 0 12px", cursor: "copy" }}
    >
      <div
        style={{
          position: "absolute",
          left: 0,
          right: 0,
          top,
          height: 6,
          borderRadius: 3,
          background: "var(--accent-weak)",
          border: "1px solid #cfd5dd",
        }}
      />
      {ticks.map((t) => (
        <div
          key={t}
          style={{
            position: "absolute",
            left: x(t),
            top: top + 10,
            transform: t === 0 ? undefined : t === span ? "translateX(-100%)" : "translateX(-50%)",
            fontSize: 11,
            color: "var(--muted)",
            whiteSpace: "nowrap",
          }}
        >
          {t} s
        </div>
      ))}
      {faults.map((f, i) => {
        const bad = invalid(i) || !Number.isFinite(f.at);
        const { lane, alignRight } = lanes[i]!;
        const color = bad ? MARK_COLOR : "var(--accent)";
        return (
          <div
            key={i}
            data-testid={`fault-mark-${i}`}
            data-invalid={bad || undefined}
            style={{
              position: "absolute",
              left: x(f.at),
              top: lane * LANE_PX,
              height: top + 6 - lane * LANE_PX,
              width: 0,
              borderLeft: `2px solid ${color}`,
            }}
          >
            <span
              style={{
                position: "absolute",
                top: 0,
                ...(alignRight ? { right: 4 } : { left: 4 }),
                fontSize: 11,
                lineHeight: `${LANE_PX - 2}px`,
                whiteSpace: "nowrap",
                color: bad ? MARK_COLOR : "var(--text)",
              }}
            >
              {labels[i]}
            </span>
          </div>
        );
      })}
    </div>
  );
}

function Cell({
  label,
  htmlFor,
  invalid,
  width,
  children,
}: {
  label: string;
  htmlFor: string;
  invalid: boolean;
  width: number;
  children: ReactNode;
}) {
  return (
    <div className={`field${invalid ? " invalid" : ""}`} style={{ width }}>
      <label htmlFor={htmlFor}>{label}</label>
      {children}
    </div>
  );
}

/**
 * The run's fault timeline: a bar with a mark per fault, then one row per fault bound to
 * `faults.<i>.*` with useFieldArray, so the schema's issues (and the server's) land on the row's
 * fields as the user types, with the API's messages. The target offers the roles of the topology
 * on screen.
 */
export function FaultEditor({ values }: { values: RunFormValues }) {
  const { control, register, setValue, trigger } = useFormContext<RunFormValues>();
  const { errors } = useFormState({ control, name: "faults" });
  const { fields, append, remove } = useFieldArray({ control, name: "faults" });

  const setupKey = JSON.stringify({ ...values, name: "", faults: [] });
  const rolesNow = useMemo(() => faultRolesOf(JSON.parse(setupKey) as RunFormValues), [setupKey]);
  // While the rest of the form is invalid, the roles of the last valid topology.
  const lastRoles = useRef<Record<string, FaultableRole>>({});
  if (rolesNow) lastRoles.current = rolesNow;
  const roles = rolesNow ?? lastRoles.current;
  const duration = Number(values.workload.durationSeconds);

  // A fault's validity depends on the others, the roles and the duration: re-check every row when any of them changes.
  useEffect(() => {
    if (fields.length > 0) void trigger("faults");
  }, [fields, setupKey, trigger]);

  const rowError = (i: number, field: (typeof FIELDS)[number]) => (get(errors, `faults.${i}.${field}`) as FieldError | undefined)?.message;
  const rowErrors = (i: number) => [...new Set(FIELDS.map((f) => rowError(i, f)).filter((m): m is string => Boolean(m)))];
  const add = (at?: number) => {
    const next = nextFault(values.faults, roles, duration);
    append(at === undefined ? next : { ...next, at });
  };

  return (
    <section className="panel" data-testid="section-faults">
      <h2>
        Faults<span className="h2-hint"> — stop, start, pause or slow a container at a second of the load</span>
      </h2>
      <div className="hint muted" style={{ fontSize: 12, marginBottom: 8 }}>
        Network faults ({NETWORK_FAULTS.join(", ")}) put a proxy in front of the target for this run only; container faults go to Docker.
      </div>
      {Number.isFinite(duration) && duration > 0 && (
        <FaultTimeline faults={values.faults} durationSeconds={duration} invalid={(i) => rowErrors(i).length > 0} onPick={(t) => add(t)} />
      )}
      <div className="stack" style={{ gap: 10 }}>
        {fields.map((field, i) => {
          const f = values.faults[i] ?? (field as unknown as FaultFormValue);
          const id = (name: string) => `f-fault-${i}-${name}`;
          const bad = (name: (typeof FIELDS)[number]) => Boolean(rowError(i, name));
          const roleNames = Object.keys(roles);
          if (f.target.role && !roleNames.includes(f.target.role)) roleNames.push(f.target.role);
          const messages = rowErrors(i);
          return (
            <div key={field.id} data-testid={`fault-row-${i}`}>
              <div style={{ display: "flex", flexWrap: "wrap", gap: 8, alignItems: "flex-end" }}>
                <Cell label="At (s)" htmlFor={id("at")} invalid={bad("at")} width={72}>
                  <input
                    id={id("at")}
                    data-testid={`fault-at-${i}`}
                    type="number"
                    min={0}
                    step={1}
                    aria-invalid={bad("at") || undefined}
                    {...register(`faults.${i}.at`, { setValueAs: numberFromInput, deps: ["faults"] })}
                  />
                </Cell>
                <Cell label="Action" htmlFor={id("action")} invalid={bad("action")} width={106}>
                  <select
                    id={id("action")}
                    data-testid={`fault-action-${i}`}
                    aria-invalid={bad("action") || undefined}
                    {...register(`faults.${i}.action`, {
                      deps: ["faults"],
                      onChange: (e: { target: { value: string } }) => {
                        const action = e.target.value as FaultFormValue["action"];
                        for (const p of FAULT_PARAMS[action] ?? []) {
                          const preset = PARAM_DEFAULTS[p as keyof typeof PARAM_DEFAULTS];
                          const current = values.faults[i]?.[p];
                          if (preset !== undefined && (current === undefined || Number.isNaN(current)))
                            setValue(`faults.${i}.${p}`, preset);
                        }
                      },
                    })}
                  >
                    <optgroup label="Container (Docker)">
                      {CONTAINER_FAULTS.map((a) => (
                        <option key={a} value={a}>
                          {a}
                        </option>
                      ))}
                    </optgroup>
                    <optgroup label="Network (through a proxy)">
                      {[...NETWORK_FAULTS, "clear" as const].map((a) => (
                        <option key={a} value={a}>
                          {a}
                        </option>
                      ))}
                    </optgroup>
                  </select>
                </Cell>
                <Cell label="Target" htmlFor={id("role")} invalid={bad("target.role")} width={172}>
                  <select
                    id={id("role")}
                    data-testid={`fault-role-${i}`}
                    aria-invalid={bad("target.role") || undefined}
                    {...register(`faults.${i}.target.role`, { deps: ["faults"] })}
                  >
                    {roleNames.map((r) => (
                      <option key={r} value={r}>
                        {roleOption(r, roles[r])}
                      </option>
                    ))}
                  </select>
                </Cell>
                <Cell label="Index" htmlFor={id("index")} invalid={bad("target.index")} width={64}>
                  <input
                    id={id("index")}
                    data-testid={`fault-index-${i}`}
                    type="number"
                    min={FAULT_LIMITS.index.min}
                    max={Math.max(0, (roles[f.target.role]?.count ?? 1) - 1)}
                    step={1}
                    aria-invalid={bad("target.index") || undefined}
                    {...register(`faults.${i}.target.index`, { setValueAs: numberFromInput, deps: ["faults"] })}
                  />
                </Cell>
                {FAULT_PARAMS[f.action]?.map((p) => (
                  <Cell key={p} label={PARAM_LABELS[p]} htmlFor={id(p)} invalid={bad(p)} width={112}>
                    <input
                      id={id(p)}
                      data-testid={`fault-${p}-${i}`}
                      type="number"
                      min={FAULT_LIMITS[p].min}
                      max={FAULT_LIMITS[p].max}
                      step={p === "percent" ? "any" : 1}
                      placeholder={p === "jitterMs" ? "none" : undefined}
                      aria-invalid={bad(p) || undefined}
                      {...register(`faults.${i}.${p}`, { setValueAs: numberFromInput, deps: ["faults"] })}
                    />
                  </Cell>
                ))}
                <button
                  type="button"
                  className="btn btn-danger"
                  data-testid={`remove-fault-${i}`}
                  aria-label={`Remove fault ${i}`}
                  style={{ marginLeft: "auto" }}
                  onClick={() => remove(i)}
                >
                  Remove
                </button>
              </div>
              {messages.length > 0 && (
                <div
                  className="field-error"
                  data-testid={`fault-error-${i}`}
                  role="alert"
                  style={{ color: "var(--bad)", fontSize: 12.5, marginTop: 4 }}
                >
                  {messages.map((m) => (
                    <div key={m}>{m}</div>
                  ))}
                </div>
              )}
            </div>
          );
        })}
      </div>
      <div style={{ marginTop: fields.length > 0 ? 12 : 0, display: "flex", gap: 12, alignItems: "center" }}>
        <button
          type="button"
          className="btn"
          data-testid="add-fault"
          onClick={() => add()}
          disabled={fields.length >= FAULT_LIMITS.faults.max}
        >
          Add fault
        </button>
        {fields.length === 0 && <span className="muted">No faults: the load runs undisturbed.</span>}
      </div>
    </section>
  );
}
