"use client";

import type { TExperimentCreateInput } from "@scalelab/scenarios/experiments";
import type { TRunWarning } from "@scalelab/scenarios/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from "react";
import {
  baseFromRun,
  buildDefinition,
  canAdd,
  defaultForm,
  describeRunField,
  EXPERIMENT_FIELDS,
  experimentInfo,
  fieldDomId,
  formFromDefinition,
  newAxisRow,
  newVariantRow,
  placeIssues,
  pretty,
  settleSecondsOf,
  SCALE_KNOBS,
  SWEEP_FIELDS,
  USL_MIN_POINTS,
  sweepValuesHint,
  VARIANT_NAME_INFO,
  type ExperimentFormValues,
  type FieldKey,
  type PlacedIssue,
} from "~/lib/experiment-form";
import { aboutDuration } from "~/lib/experiment-format";
import { formatTimestamp } from "~/lib/format";
import type { FieldIssue } from "~/lib/issues";
import { useDebounced } from "~/lib/use-debounced";
import { useTRPC } from "~/trpc/client";
import { FieldFrame, SchemaField } from "./form-field";
import { RunWarnings } from "./run-warnings";

const PLACEHOLDER_NAME = "(untitled)";

type Plan = {
  runs: number;
  estimatedSeconds: number;
  warnings: TRunWarning[];
  baseline: string;
  variants: { index: number; name: string; patch: Record<string, unknown> }[];
};

/** The server's answer for a body (`key` is the body as JSON): its plan, its field issues, or an error. */
type Checked = { key: string } & (
  { kind: "plan"; plan: Plan } | { kind: "issues"; issues: FieldIssue[] } | { kind: "error"; message: string }
);

type ErrorLike = { message: string; data?: { issues?: FieldIssue[] | null } | null };
const checkedOf = (key: string, err: ErrorLike): Checked => {
  const issues = err.data?.issues ?? [];
  return issues.length > 0 ? { key, kind: "issues", issues } : { key, kind: "error", message: err.message };
};

/** `/experiments/new`, empty or filled in from an experiment's definition (`from`) or a preset's (`preset`). */
export function NewExperiment({ from, preset }: { from?: string; preset?: string }) {
  if (from) return <CopiedExperiment id={from} />;
  if (preset) return <PresetExperiment name={preset} />;
  return <ExperimentForm initial={defaultForm()} />;
}

function PresetExperiment({ name }: { name: string }) {
  const trpc = useTRPC();
  const presets = useQuery(trpc.presets.list.queryOptions({}));
  const preset = presets.data?.find((p) => p.name === name);
  const initial = useMemo(() => (preset ? formFromDefinition(preset.experiment, { copy: true }) : null), [preset]);
  if (presets.isPending) return <div className="empty">Loading…</div>;
  if (!preset || !initial) {
    return (
      <div className="panel empty error-box" data-testid="experiment-missing">
        {presets.isError ? `Could not load the presets: ${presets.error.message}.` : `There is no preset named "${name}".`}{" "}
        <Link href="/presets">See the presets</Link> or <Link href="/experiments/new">start from scratch</Link>.
      </div>
    );
  }
  return (
    <ExperimentForm
      key={`preset:${name}`}
      initial={initial}
      copiedFrom={{ what: "preset", href: `/presets#${encodeURIComponent(name)}`, name: preset.title }}
    />
  );
}

function CopiedExperiment({ id }: { id: string }) {
  const trpc = useTRPC();
  const source = useQuery(trpc.experiments.get.queryOptions({ id }));
  const initial = useMemo(() => (source.data ? formFromDefinition(source.data.definition, { copy: true }) : null), [source.data]);
  if (source.isPending) return <div className="empty">Loading…</div>;
  if (source.isError || !initial) {
    return (
      <div className="panel empty error-box" data-testid="experiment-missing">
        Could not load the experiment to copy: {source.error?.message}. <Link href="/experiments/new">Start from scratch.</Link>
      </div>
    );
  }
  return (
    <ExperimentForm key={id} initial={initial} copiedFrom={{ what: "experiment", href: `/experiments/${id}`, name: source.data.name }} />
  );
}

function Issues({ list, testId = "field-issue", field }: { list: readonly (PlacedIssue | string)[]; testId?: string; field: string }) {
  return list.map((i) => {
    const message = typeof i === "string" ? i : i.message;
    return (
      <div key={message} className="field-error" data-testid={testId} data-field={field} role="alert">
        {message}
      </div>
    );
  });
}

/** The test ids of a field's issues: each a `field-issue` naming its field. */
const issueIds = (field: FieldKey) => ({ error: "field-issue", errorData: { "data-field": field } });

/** Messages of a field: its JSON's first, then the server's. */
const messagesOf = (local: string | undefined, issues: readonly PlacedIssue[] | undefined): string[] => [
  ...(local ? [local] : []),
  ...(issues ?? []).map((i) => i.message),
];

/** A field whose control is not drawn from the schema (JSON, a sweep axis, the baseline): its label, then its errors or its hint. */
function Field(props: {
  field: FieldKey;
  label: string;
  hint?: ReactNode;
  local?: string;
  issues?: PlacedIssue[];
  wide?: boolean;
  children: ReactNode;
}) {
  const { error, errorData } = issueIds(props.field);
  return (
    <FieldFrame
      id={fieldDomId(props.field)}
      label={props.label}
      wide={props.wide}
      hint={props.hint}
      errors={messagesOf(props.local, props.issues)}
      errorAttrs={{ testId: error, data: errorData }}
    >
      {props.children}
    </FieldFrame>
  );
}

/** The error summary at the top: every issue of the last check, each linking to its field when it has one. */
function IssueSummary({ issues }: { issues: PlacedIssue[] }) {
  if (issues.length === 0) return null;
  return (
    <div className="error-box issue-summary" data-testid="experiment-issues" role="alert">
      <strong>{issues.length === 1 ? "1 problem" : `${issues.length} problems`} to fix before this can run:</strong>
      <ul>
        {issues.map((i) => (
          <li key={`${i.path}\u0000${i.message}`} data-path={i.path}>
            {i.field ? <a href={`#${fieldDomId(i.field)}`}>{i.message}</a> : i.message}
            {i.path && i.field === null && <span className="mono"> ({i.path})</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function RunPicker({ onPick }: { onPick: (base: Record<string, unknown>) => void }) {
  const trpc = useTRPC();
  // The newest 100 runs.
  const runs = useQuery({ ...trpc.runs.list.queryOptions({}), select: (page) => page.items });
  return (
    <select
      id="xf-copy-run"
      data-testid="copy-run"
      value=""
      disabled={!runs.data || runs.data.length === 0}
      onChange={(e) => {
        const run = runs.data?.find((r) => r.id === e.target.value);
        if (run) onPick(baseFromRun(run));
      }}
    >
      <option value="">
        {runs.isPending
          ? "Loading runs…"
          : runs.isError
            ? "Could not load runs"
            : runs.data.length === 0
              ? "No runs yet"
              : "Copy from a run…"}
      </option>
      {runs.data?.map((r) => (
        <option key={r.id} value={r.id}>
          {r.name ?? r.id.slice(0, 8)} — {r.topology.service.replicas}× {r.topology.service.cpus ?? "∞"} CPU ·{" "}
          {r.workload.arrivalRate !== undefined
            ? `${r.workload.arrivalRate} req/s`
            : r.workload.connections !== undefined && r.workload.loadgen === "wrk"
              ? `${r.workload.connections} conns`
              : `${r.workload.vus} VUs`}{" "}
          · {r.status} · {formatTimestamp(r.createdAt)}
        </option>
      ))}
    </select>
  );
}

type CopiedFrom = { what: "experiment" | "preset"; href: string; name: string };

function ExperimentForm({ initial, copiedFrom }: { initial: ExperimentFormValues; copiedFrom?: CopiedFrom }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  // The host's bounds, for the ranges the sweep's hints give.
  const host = useQuery(trpc.host.facts.queryOptions({}));
  const [values, setValues] = useState(initial);
  const set = <K extends keyof ExperimentFormValues>(key: K, value: ExperimentFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const setRow = <K extends "variants" | "axes">(key: K, id: string, change: Partial<ExperimentFormValues[K][number]>) =>
    setValues((v) => ({ ...v, [key]: v[key].map((r) => (r.id === id ? { ...r, ...change } : r)) }));

  const built = useMemo(() => buildDefinition(values), [values]);
  // The plan is shown before the experiment has a name; a missing name is the server's to say on submit.
  const bodyKey = built.body ? JSON.stringify({ ...built.body, name: built.body.name || PLACEHOLDER_NAME }) : null;
  const checkKey = useDebounced(bodyKey, 400);

  const [checked, setChecked] = useState<Checked | null>(null);
  const preview = useMutation(trpc.experiments.preview.mutationOptions());
  const previewMutate = preview.mutate;
  useEffect(() => {
    if (checkKey === null) return;
    // Only the latest call's callbacks run: an older answer arriving late is dropped.
    previewMutate(JSON.parse(checkKey) as TExperimentCreateInput, {
      onSuccess: (plan) => setChecked({ key: checkKey, kind: "plan", plan }),
      onError: (err) => setChecked(checkedOf(checkKey, err)),
    });
  }, [checkKey, previewMutate]);

  const create = useMutation(
    trpc.experiments.create.mutationOptions({
      onSuccess: (ref) => {
        void queryClient.invalidateQueries({ queryKey: trpc.experiments.list.pathKey() });
        router.push(`/experiments/${ref.id}`);
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!built.body || !bodyKey || create.isPending) return;
    const key = bodyKey;
    create.mutate(built.body, { onError: (err) => setChecked(checkedOf(key, err)) });
  };

  const rows = { variants: values.variants.length, axes: values.axes.length };
  const placed = useMemo(() => placeIssues(checked?.kind === "issues" ? checked.issues : [], rows), [checked, rows.variants, rows.axes]);
  const at = (key: FieldKey) => placed.byField[key];
  const plan = checked?.kind === "plan" ? checked.plan : null;
  const current = checked !== null && checked.key === bodyKey;
  const jsonBroken = built.body === null;

  const baselineOptions = plan ? plan.variants.map((v) => v.name) : [];
  if (values.baseline && !baselineOptions.includes(values.baseline)) baselineOptions.push(values.baseline);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>New experiment</h1>
          <div className="sub">
            A base run, variants of it and/or sweep axes, each run several times in interleaved order (A, B, C, A, B, C, …) and compared
            with the baseline.
            {copiedFrom && (
              <span data-testid="copied-from" data-from={copiedFrom.what}>
                {" "}
                Copied from {copiedFrom.what === "preset" && "the preset "}
                <Link href={copiedFrom.href}>{copiedFrom.name}</Link>
                {copiedFrom.what === "preset"
                  ? "; started from here it is an experiment of your own, without the write-up's figures beside it."
                  : "."}
              </span>
            )}
          </div>
        </div>
        <div className="actions">
          <Link className="btn" href="/experiments">
            Back to experiments
          </Link>
        </div>
      </div>

      <div className="form-grid experiment-grid">
        <form className="stack" onSubmit={submit} noValidate data-testid="experiment-form">
          <IssueSummary issues={placed.all} />

          <section className="panel">
            <h2>Experiment</h2>
            <fieldset className="fields">
              {EXPERIMENT_FIELDS.map((spec) => (
                <SchemaField
                  key={spec.path}
                  info={experimentInfo(spec.path)}
                  id={fieldDomId(spec.path)}
                  testIds={{ control: spec.testId, ...issueIds(spec.path) }}
                  label={spec.label}
                  hint={spec.hint}
                  placeholder={spec.placeholder}
                  wide={spec.wide}
                  errors={messagesOf(undefined, at(spec.path))}
                  bind={{ value: values[spec.path], onChange: (text) => set(spec.path, text) }}
                />
              ))}
              <Field field="baseline" label="Baseline" wide issues={at("baseline")} hint="The variant the others are compared with.">
                <select
                  id={fieldDomId("baseline")}
                  data-testid="experiment-baseline"
                  value={values.baseline}
                  onChange={(e) => set("baseline", e.target.value)}
                >
                  <option value="">The first variant{plan ? ` (${plan.variants[0]?.name ?? "—"})` : ""}</option>
                  {baselineOptions.map((name) => (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  ))}
                </select>
              </Field>
              <Field
                field="thresholds"
                label="Thresholds (JSON)"
                wide
                local={built.errors.thresholds}
                issues={at("thresholds")}
                hint='Optional. Per run, e.g. {"metric": "p95", "op": "<", "value": 250}; against the baseline, e.g. {"metric": "rps", "compare": "baseline", "worseBy": 5, "p": 0.05}.'
              >
                <textarea
                  id={fieldDomId("thresholds")}
                  data-testid="experiment-thresholds"
                  className="json"
                  rows={Math.min(12, Math.max(2, values.thresholds.split("\n").length + 1))}
                  spellCheck={false}
                  placeholder='[{"metric": "errorRate", "op": "<", "value": 0.01}]'
                  value={values.thresholds}
                  onChange={(e) => set("thresholds", e.target.value)}
                />
              </Field>
            </fieldset>
          </section>

          <section className="panel">
            <h2>
              Base run<span className="h2-hint"> — a run definition as POST /api/v1/runs takes it</span>
            </h2>
            <div className="field" style={{ marginBottom: 12 }}>
              <label htmlFor="xf-copy-run">Start from a run</label>
              <RunPicker onPick={(base) => set("base", pretty(base))} />
            </div>
            <Field
              field="base"
              label="Definition (JSON)"
              local={built.errors.base}
              issues={at("base")}
              hint={
                <>
                  topology, workload and faults as on the <Link href="/runs/new">new-run form</Link>; defaults fill in the rest.
                </>
              }
            >
              <textarea
                id={fieldDomId("base")}
                data-testid="experiment-base"
                className="json"
                rows={Math.min(24, Math.max(8, values.base.split("\n").length + 1))}
                spellCheck={false}
                value={values.base}
                onChange={(e) => set("base", e.target.value)}
              />
            </Field>
          </section>

          <section className="panel" id={fieldDomId("variants")} data-testid="variants-section">
            <h2>
              Variants<span className="h2-hint"> — each a JSON patch of the base: objects merge field by field, null removes a field</span>
            </h2>
            {at("variants") && <Issues list={at("variants")!} field="variants" />}
            {values.variants.length === 0 ? (
              <div className="muted" style={{ marginBottom: 10 }}>
                No variants: the base alone{values.axes.length > 0 ? ", at every point of the sweep" : ""}.
              </div>
            ) : (
              <div className="xrows">
                {values.variants.map((row, i) => {
                  const nameKey = `variants[${i}].name` as const;
                  const patchKey = `variants[${i}].patch` as const;
                  return (
                    <div key={row.id} className="xrow variant-row" data-testid="variant-row">
                      <SchemaField
                        info={VARIANT_NAME_INFO}
                        id={fieldDomId(nameKey)}
                        testIds={{ control: "variant-name", ...issueIds(nameKey) }}
                        label="Name"
                        placeholder={`e.g. ${i === 0 ? "baseline" : `variant ${i + 1}`}`}
                        errors={messagesOf(undefined, at(nameKey))}
                        bind={{ value: row.name, onChange: (name) => setRow("variants", row.id, { name }) }}
                      />
                      <Field field={patchKey} label="Patch (JSON)" local={built.errors[patchKey]} issues={at(patchKey)}>
                        <textarea
                          id={fieldDomId(patchKey)}
                          data-testid="variant-patch"
                          className="json"
                          rows={Math.min(12, Math.max(2, row.patch.split("\n").length))}
                          spellCheck={false}
                          placeholder='{"topology": {"service": {"replicas": 2}}}'
                          value={row.patch}
                          onChange={(e) => setRow("variants", row.id, { patch: e.target.value })}
                        />
                      </Field>
                      <button
                        type="button"
                        className="btn btn-icon"
                        data-testid="remove-variant"
                        aria-label={`Remove variant ${row.name || i + 1}`}
                        title="Remove this variant"
                        onClick={() =>
                          set(
                            "variants",
                            values.variants.filter((r) => r.id !== row.id),
                          )
                        }
                      >
                        ×
                      </button>
                    </div>
                  );
                })}
              </div>
            )}
            <button
              type="button"
              className="btn"
              data-testid="add-variant"
              disabled={!canAdd(values, "variants")}
              onClick={() => set("variants", [...values.variants, newVariantRow(`variant ${values.variants.length + 1}`)])}
            >
              + Add variant
            </button>
          </section>

          <section className="panel" id={fieldDomId("sweep")} data-testid="sweep-section">
            <h2>
              Sweep
              <span className="h2-hint">
                {" "}
                — a field and its values; axes multiply into a grid (with variants: every variant at every point)
              </span>
            </h2>
            {at("sweep") && <Issues list={at("sweep")!} field="sweep" />}
            <datalist id="sweep-fields">
              {SWEEP_FIELDS.map((path) => (
                <option key={path} value={path} label={describeRunField(path, host.data) ?? undefined} />
              ))}
            </datalist>
            {values.axes.length === 0 ? (
              <div className="muted" style={{ marginBottom: 10 }}>
                No sweep. Sweep a scale knob ({SCALE_KNOBS}) over {USL_MIN_POINTS} or more values to get a USL fit.
              </div>
            ) : (
              <div className="xrows">
                {values.axes.map((row, i) => {
                  const fieldKey = `sweep[${i}].field` as const;
                  const valuesKey = `sweep[${i}].values` as const;
                  return (
                    <div key={row.id} className="xrow axis-row" data-testid="axis-row">
                      <Field field={fieldKey} label="Field" issues={at(fieldKey)}>
                        <input
                          id={fieldDomId(fieldKey)}
                          data-testid="axis-field"
                          list="sweep-fields"
                          value={row.field}
                          placeholder="topology.service.replicas"
                          spellCheck={false}
                          onChange={(e) => setRow("axes", row.id, { field: e.target.value })}
                        />
                      </Field>
                      <Field
                        field={valuesKey}
                        label="Values"
                        local={built.errors[valuesKey]}
                        issues={at(valuesKey)}
                        hint={sweepValuesHint(row, host.data)}
                      >
                        <input
                          id={fieldDomId(valuesKey)}
                          data-testid="axis-values"
                          value={row.values}
                          placeholder="1, 2, 4"
                          spellCheck={false}
                          onChange={(e) => setRow("axes", row.id, { values: e.target.value })}
                        />
                      </Field>
                      <button
                        type="button"
                        className="btn btn-icon"
                        data-testid="remove-axis"
                        aria-label={`Remove axis ${row.field || i + 1}`}
                        title="Remove this axis"
                        onClick={() =>
                          set(
                            "axes",
                            values.axes.filter((r) => r.id !== row.id),
                          )
                        }
                      >
                        ×
                      </button>
                    </div>
                  );
                })}
              </div>
            )}
            <button
              type="button"
              className="btn"
              data-testid="add-axis"
              disabled={!canAdd(values, "axes")}
              onClick={() => set("axes", [...values.axes, newAxisRow()])}
            >
              + Add axis
            </button>
          </section>

          {create.error && !create.error.data?.issues?.length && (
            <div className="error-box" role="alert" data-testid="experiment-create-error">
              Could not create the experiment: {create.error.message}
            </div>
          )}
          {plan && current && <RunWarnings warnings={plan.warnings} testId="experiment-warnings" />}
          <div className="form-actions">
            <button
              type="submit"
              className="btn btn-primary"
              data-testid="experiment-submit"
              disabled={jsonBroken || create.isPending || create.isSuccess}
            >
              {create.isPending || create.isSuccess ? "Queueing…" : "Start experiment"}
            </button>
            {plan && current && (
              <span className="muted">
                {plan.runs} runs · {aboutDuration(plan.estimatedSeconds)}
              </span>
            )}
          </div>
        </form>

        <PlanPanel checked={checked} current={current} jsonBroken={jsonBroken} pending={preview.isPending} values={values} />
      </div>
    </>
  );
}

function PlanPanel({
  checked,
  current,
  jsonBroken,
  pending,
  values,
}: {
  checked: Checked | null;
  current: boolean;
  jsonBroken: boolean;
  pending: boolean;
  values: ExperimentFormValues;
}) {
  const stale = !current || pending;
  let body: ReactNode;
  if (jsonBroken) body = <div className="chart-empty plan-empty">Fix the JSON marked in the form to see the plan.</div>;
  else if (checked === null) body = <div className="chart-empty plan-empty">Checking…</div>;
  else if (checked.kind === "issues") {
    body = (
      <div className="chart-empty plan-empty" data-testid="preview-invalid">
        Fix the {checked.issues.length === 1 ? "problem" : `${checked.issues.length} problems`} listed above the form to see the plan.
      </div>
    );
  } else if (checked.kind === "error") {
    body = <div className="error-box">Could not check the experiment: {checked.message}</div>;
  } else {
    const { plan } = checked;
    const repetitions = plan.variants.length > 0 ? plan.runs / plan.variants.length : 0;
    const settle = settleSecondsOf(values);
    body = (
      <div style={{ opacity: stale ? 0.55 : 1 }}>
        <div className="figures" style={{ marginBottom: 12 }}>
          <div className="figure">
            <div className="label">Runs</div>
            <div className="value" data-testid="preview-runs">
              {plan.runs}
            </div>
          </div>
          <div className="figure">
            <div className="label">Duration</div>
            <div
              className="value"
              data-testid="preview-estimate"
              title={`${plan.estimatedSeconds} s; images built on first use not included`}
            >
              {aboutDuration(plan.estimatedSeconds)}
            </div>
          </div>
        </div>
        <div className="muted" style={{ marginBottom: 10 }}>
          {plan.variants.length} variant{plan.variants.length === 1 ? "" : "s"} × {repetitions} repetition{repetitions === 1 ? "" : "s"},
          interleaved
          {Number.isFinite(settle) && settle > 0 ? `, ${settle} s pause before each run` : ""}. Baseline:{" "}
          <strong data-testid="preview-baseline">{plan.baseline}</strong>.
        </div>
        <ol className="plan-variants" data-testid="preview-variants">
          {plan.variants.map((v) => (
            <li key={v.index} title={Object.keys(v.patch).length > 0 ? JSON.stringify(v.patch) : "the base as it is"}>
              {v.name}
              {v.name === plan.baseline && <span className="tag">baseline</span>}
              {Object.keys(v.patch).length > 0 && <span className="mono muted"> {JSON.stringify(v.patch)}</span>}
            </li>
          ))}
        </ol>
      </div>
    );
  }
  return (
    <section
      className="panel sticky"
      data-testid="experiment-preview"
      data-state={jsonBroken ? "json" : (checked?.kind ?? "checking")}
      aria-busy={stale}
    >
      <h2>Plan{stale && !jsonBroken && checked !== null && <span className="h2-hint"> — checking…</span>}</h2>
      {body}
    </section>
  );
}
