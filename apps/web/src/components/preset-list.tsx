"use client";

import type { FieldInfo } from "@scalelab/scenarios/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { EXPERIMENT_FIELDS, experimentInfo } from "~/lib/experiment-form";
import { formatDuration } from "~/lib/format";
import {
  placeIssues,
  planPresetRun,
  presetDurations,
  referenceTable,
  runsAndDuration,
  variantsLine,
  type PresetIssue,
  type QuickCheck,
  type QuickField,
} from "~/lib/preset-run";
import type { TPresetView } from "~/server/experiments/presets";
import { infoOf } from "~/lib/run-form";
import { useTRPC } from "~/trpc/client";
import { SchemaField } from "./form-field";
import { ScrollBox } from "./scroll-region";

/** `/presets`: the write-ups' experiments, each with what it shows, the shape expected and a Run button. */
export function PresetList() {
  const trpc = useTRPC();
  const presets = useQuery(trpc.presets.list.queryOptions({}));

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Presets</h1>
          <div className="sub">
            The write-ups&apos; experiments, scaled to this machine. Each runs as an experiment: its variants interleaved, compared with the
            baseline and shown beside the write-up&apos;s own figures.
          </div>
        </div>
        <div className="actions">
          <Link className="btn" href="/experiments">
            Experiments
          </Link>
        </div>
      </div>

      {presets.isPending ? (
        <div className="panel empty">Loading…</div>
      ) : presets.isError ? (
        <div className="panel empty error-box">Could not load the presets: {presets.error.message}</div>
      ) : (
        <div data-testid="presets">
          {presets.data.map((p) => (
            <PresetCard key={p.name} preset={p} />
          ))}
        </div>
      )}
    </>
  );
}

function PresetCard({ preset }: { preset: TPresetView }) {
  const variants = preset.runs / preset.experiment.repetitions;
  const durations = useMemo(() => presetDurations(preset.experiment), [preset.experiment]);
  const load = durations
    ? durations.min === durations.max
      ? formatDuration(durations.min)
      : `${formatDuration(durations.min)}–${formatDuration(durations.max)}`
    : null;
  const reference = useMemo(() => referenceTable(preset.reference), [preset.reference]);

  return (
    <section className="panel" data-testid="preset" data-preset={preset.name} id={preset.name}>
      <div className="panel-head">
        <h2>
          {preset.title}
          <span className="h2-hint"> — {preset.source}</span>
        </h2>
        <span className="mono muted">{preset.name}</span>
      </div>
      <p style={{ margin: "0 0 14px", fontSize: 15 }} data-testid="preset-shows">
        {preset.shows}
      </p>

      <div className="form-grid experiment-grid">
        <div>
          <dl className="facts">
            <dt>Expected</dt>
            <dd data-testid="preset-expected">{preset.expected}</dd>
            <dt>Scaled</dt>
            <dd data-testid="preset-scaled">{preset.scaled}</dd>
            <dt>Variants</dt>
            <dd>
              {variantsLine(preset.experiment)}
              {preset.experiment.baseline && <span className="muted"> (baseline {preset.experiment.baseline})</span>}
            </dd>
            <dt>Runs</dt>
            <dd data-testid="preset-runs">
              {runsAndDuration(preset.runs, preset.estimatedSeconds)}
              <span className="muted">
                {" "}
                ({variants} variant{variants === 1 ? "" : "s"} × {preset.experiment.repetitions} repetition
                {preset.experiment.repetitions === 1 ? "" : "s"}
                {load && `, ${load} of load each`})
              </span>
            </dd>
          </dl>

          {reference.rows.length > 0 && (
            <ScrollBox label="The write-up's figures" style={{ marginTop: 12 }}>
              <h3>The write-up&apos;s figures</h3>
              <table className="data" style={{ width: "auto" }} data-testid="preset-reference">
                <thead>
                  <tr>
                    <th>Variant</th>
                    {reference.figures.map((f) => (
                      <th key={f} className="num">
                        {f}
                      </th>
                    ))}
                    {reference.rows.some((r) => r.note) && <th>Note</th>}
                  </tr>
                </thead>
                <tbody>
                  {reference.rows.map((r) => (
                    <tr key={r.variant}>
                      <td>{r.variant}</td>
                      {r.values.map((v, i) => (
                        <td key={reference.figures[i]} className="num">
                          {v ?? <span className="muted">—</span>}
                        </td>
                      ))}
                      {reference.rows.some((x) => x.note) && <td className="muted wrap">{r.note ?? ""}</td>}
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          )}
        </div>

        {preset.engine && (
          <p className="muted" data-testid="preset-engine">
            It runs on the engine {preset.engine.name} with at least {preset.engine.nodes} nodes: start the test cluster with{" "}
            <code>{preset.engine.setup}</code> (docs/DISTRIBUTED.md for a cluster of your own).
          </p>
        )}
        {preset.needs ? <YourServiceRun preset={preset} /> : <QuickRun preset={preset} load={durations} />}
      </div>
    </section>
  );
}

/** A preset for the user's own service starts from the run form, where the image and its request are chosen. */
function YourServiceRun({ preset }: { preset: TPresetView }) {
  return (
    <div
      style={{ border: "1px solid var(--border)", borderRadius: "var(--radius)", background: "var(--bg)", padding: "12px 14px" }}
      data-testid="preset-quick"
    >
      <h3>Run it on your image</h3>
      <p className="muted" style={{ marginTop: 0 }}>
        It needs {preset.needs}. Choose them in the run form (Server: your image), then press “How does it scale?”; or POST them as the
        preset run&apos;s <code>patch</code> to <code>/api/v1/presets/{preset.name}/run</code>.
      </p>
      <Link className="button primary" href="/runs/new?kind=image" data-testid="preset-open-form">
        Open the run form
      </Link>
    </div>
  );
}

type ErrorLike = { message: string; data?: { issues?: { path: string; message: string }[] | null } | null };

/** The Run button with its quick check: other repetitions and a shorter load, the estimate following them. */
function QuickRun({ preset, load }: { preset: TPresetView; load: { min: number; max: number } | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [quick, setQuick] = useState<QuickCheck>({ repetitions: String(preset.experiment.repetitions), duration: "" });
  const plan = useMemo(() => planPresetRun(preset, quick), [preset, quick]);

  const run = useMutation(
    trpc.presets.run.mutationOptions({
      onSuccess: (ref) => {
        void queryClient.invalidateQueries({ queryKey: trpc.experiments.list.pathKey() });
        router.push(`/experiments/${ref.id}`);
      },
    }),
  );
  const change = (key: keyof QuickCheck, value: string) => {
    // The server's answer was about the values before: it goes with them.
    if (run.isError) run.reset();
    setQuick((q) => ({ ...q, [key]: value }));
  };

  const error = run.error as ErrorLike | null;
  const serverIssues = error?.data?.issues?.length ? placeIssues(error.data.issues) : [];
  const issues: PresetIssue[] = [...(plan.ok ? [] : plan.issues), ...serverIssues];
  const at = (field: QuickField) => issues.filter((i) => i.field === field);
  const elsewhere = issues.filter((i) => i.field === null);
  const starting = run.isPending || run.isSuccess;

  return (
    <div
      style={{ border: "1px solid var(--border)", borderRadius: "var(--radius)", background: "var(--bg)", padding: "12px 14px" }}
      data-testid="preset-quick"
    >
      <h3>Run it</h3>
      <fieldset className="fields" style={{ marginBottom: 10 }}>
        <QuickInput
          id={`${preset.name}-repetitions`}
          testId="preset-repetitions"
          info={experimentInfo("repetitions")}
          label="Repetitions"
          hint={REPETITIONS_HINT}
          value={quick.repetitions}
          placeholder={String(preset.experiment.repetitions)}
          issues={at("repetitions")}
          onChange={(v) => change("repetitions", v)}
        />
        <QuickInput
          id={`${preset.name}-duration`}
          testId="preset-duration"
          info={infoOf("workload.durationSeconds")}
          label="Load (s per run)"
          hint={load ? `Empty: the preset's ${load.min === load.max ? load.min : `${load.min}–${load.max}`} s.` : "Empty: the preset's."}
          value={quick.duration}
          placeholder={load ? String(load.max) : ""}
          issues={at("duration")}
          onChange={(v) => change("duration", v)}
        />
      </fieldset>

      <div
        className="muted"
        style={{ marginBottom: 10 }}
        data-testid="preset-estimate"
        data-runs={plan.ok ? plan.runs : undefined}
        data-seconds={plan.ok ? plan.estimatedSeconds : undefined}
      >
        {plan.ok ? (
          <>
            <strong style={{ color: "var(--text)" }}>{runsAndDuration(plan.runs, plan.estimatedSeconds)}</strong>
            {plan.changed && <> · a quick check (the preset: {runsAndDuration(preset.runs, preset.estimatedSeconds)})</>}
          </>
        ) : (
          "Fix the values above to see the runs and their duration."
        )}
      </div>

      {elsewhere.length > 0 && (
        <div
          className="error-box"
          role="alert"
          style={{ marginBottom: 10 }}
          data-testid="preset-error"
          data-source={serverIssues.length > 0 ? "server" : "check"}
        >
          <ul style={{ margin: 0, paddingLeft: 18 }}>
            {elsewhere.map((i) => (
              <li key={`${i.path}\u0000${i.message}`} data-path={i.path}>
                {i.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {error && serverIssues.length === 0 && (
        <div className="error-box" role="alert" style={{ marginBottom: 10 }} data-testid="preset-error" data-source="server">
          Could not start the preset: {error.message}
        </div>
      )}

      <div className="form-actions">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="preset-run"
          disabled={!plan.ok || starting}
          title={
            plan.ok
              ? `${plan.repetitions} repetition${plan.repetitions === 1 ? "" : "s"}${plan.durationSeconds !== null ? `, ${plan.durationSeconds} s of load per run` : ""}`
              : undefined
          }
          onClick={() => {
            if (plan.ok && !starting) run.mutate(plan.body);
          }}
        >
          {starting ? "Starting…" : "Run"}
        </button>
        <Link className="btn" href={`/experiments/new?preset=${encodeURIComponent(preset.name)}`} data-testid="preset-copy">
          Copy and change
        </Link>
      </div>
    </div>
  );
}

/** The experiment form's words for the repetitions. */
const REPETITIONS_HINT = EXPERIMENT_FIELDS.find((f) => f.path === "repetitions")?.hint;

/** A quick-check input: the schema's field (bounds and range from it), its value as typed. */
function QuickInput(props: {
  id: string;
  testId: string;
  info: FieldInfo;
  label: string;
  hint: string | undefined;
  value: string;
  placeholder: string;
  issues: PresetIssue[];
  onChange: (value: string) => void;
}) {
  return (
    <SchemaField
      info={props.info}
      id={props.id}
      testIds={{ control: props.testId, error: "preset-field-error" }}
      label={props.label}
      hint={props.hint}
      placeholder={props.placeholder}
      errors={props.issues.map((i) => i.message)}
      bind={{ value: props.value, onChange: props.onChange }}
    />
  );
}
