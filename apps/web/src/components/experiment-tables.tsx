"use client";

import { EXPERIMENT_METRICS, type TMetricKey } from "@scalelab/scenarios/analysis";
import Link from "next/link";
import { comparisonRows, heatShade, heatTables, shortField } from "~/lib/experiment-charts";
import { FindingList } from "./finding-list";
import { comparisonText, comparisonTitle, formatCi, formatCv, formatMeanSd, formatValue, type MetricUnit } from "~/lib/experiment-format";
import { formatMs, formatPct, formatRps } from "~/lib/format";
import type { TExperimentView } from "~/server/experiments/types";
import { stepLabel } from "./status";
import { ScrollBox } from "./scroll-region";

type Variant = TExperimentView["variants"][number];
type VariantRun = Variant["runs"][number];

const LATENCIES = [
  { key: "latencyMs.p50", label: "p50" },
  { key: "latencyMs.p95", label: "p95" },
  { key: "latencyMs.p99", label: "p99" },
] as const;

const COMPARED: readonly { key: TMetricKey; label: string }[] = [{ key: "rps", label: "req/s" }, ...LATENCIES];

function runTitle(r: VariantRun): string {
  const parts = [`repetition ${r.repetition + 1}${r.attempt > 1 ? `, attempt ${r.attempt} (a retry)` : ""}`, r.status];
  if (r.status === "running" || r.status === "queued") parts.push(stepLabel(r.step));
  if (r.rps !== null) parts.push(`${formatRps(r.rps)} req/s`);
  if (r.error) parts.push(r.error);
  return parts.join(" · ");
}

/** A variant's runs as small links, coloured by status; a retry carries ↻. */
function RunChips({ runs }: { runs: VariantRun[] }) {
  if (runs.length === 0) return <span className="muted">—</span>;
  return (
    <span className="run-chips" style={{ minWidth: Math.min(runs.length, 8) * 25 }}>
      {runs.map((r) => (
        <Link
          key={r.id}
          href={`/runs/${r.id}`}
          className={`run-chip run-chip-${r.status}`}
          title={runTitle(r)}
          data-testid="variant-run"
          data-run-id={r.id}
          data-status={r.status}
          data-attempt={r.attempt}
        >
          {r.repetition + 1}
          {r.attempt > 1 && <span aria-label="retry">↻</span>}
        </Link>
      ))}
    </span>
  );
}

function NoisyTag() {
  return (
    <span
      className="tag tag-warn"
      data-testid="noisy"
      title="The runs of this variant vary by more than 10 % (coefficient of variation): small differences are not to be trusted."
    >
      noisy (CV &gt; 10 %)
    </span>
  );
}

/** A latency's mean ± sd; when noisy, in the warning colour (the tag would crowd a table of 20 variants). */
function MeanCell({ v, metric, unit }: { v: Variant; metric: TMetricKey; unit: MetricUnit }) {
  const d = v.statistics.metrics[metric];
  const noisy = v.statistics.noisy.includes(metric);
  const detail = d && d.cv !== null ? `CV ${formatCv(d.cv)} · 95 % CI ${formatCi(d, unit)}` : undefined;
  return (
    <td className="num" title={noisy ? `noisy (CV > 10 %): ${detail}` : detail} data-metric={metric} data-noisy={noisy || undefined}>
      <span className={noisy ? "noisy-value" : undefined}>{formatMeanSd(d, unit)}</span>
    </td>
  );
}

/** Per variant: its runs, how many succeeded, and mean ± sd of req/s (with CV and CI) and the latency percentiles. */
export function VariantStats({ view }: { view: TExperimentView }) {
  return (
    <section className="panel" style={{ padding: 0 }}>
      <div className="panel-title">
        <h2>Variants</h2>
        <span className="muted">
          Mean ± sd over each variant&apos;s succeeded runs (n); the CI is the 95 % confidence interval of the mean req/s, computed on the
          log scale as the comparisons are (never below 0). Latencies in <span className="noisy-value">orange</span> vary by more than 10 %
          between runs.
        </span>
      </div>
      <ScrollBox label="Variants">
        <table className="data variant-stats" data-testid="variant-stats">
          <thead>
            <tr>
              <th>Variant</th>
              <th>Runs</th>
              <th className="num">n</th>
              <th className="num">req/s</th>
              <th className="num">CV</th>
              <th className="num">95 % CI</th>
              {LATENCIES.map((m) => (
                <th key={m.key} className="num">
                  {m.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {view.variants.map((v) => {
              const rps = v.statistics.metrics.rps;
              const isBaseline = v.name === view.baseline;
              return (
                <tr key={v.index} data-testid="variant-row" data-variant={v.name} data-baseline={isBaseline || undefined}>
                  <td className="name">
                    {v.name}
                    {isBaseline && (
                      <span className="tag" data-testid="baseline-tag">
                        baseline
                      </span>
                    )}
                  </td>
                  <td>
                    <RunChips runs={v.runs} />
                  </td>
                  <td className="num" title={v.statistics.failedRuns > 0 ? `${v.statistics.failedRuns} failed or interrupted` : undefined}>
                    {v.statistics.runs}
                    {v.statistics.failedRuns > 0 && <span className="bad-text"> ({v.statistics.failedRuns} failed)</span>}
                  </td>
                  <td className="num">{formatMeanSd(rps, "req/s")}</td>
                  <td className="num">
                    {formatCv(rps?.cv)}
                    {v.statistics.noisy.includes("rps") && (
                      <>
                        {" "}
                        <NoisyTag />
                      </>
                    )}
                  </td>
                  <td className="num muted">{formatCi(rps, "req/s")}</td>
                  {LATENCIES.map((m) => (
                    <MeanCell key={m.key} v={v} metric={m.key} unit="ms" />
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}

/** benchstat-like: each variant against the baseline, per metric, coloured by verdict, the ratio's CI in the tooltip. */
export function Comparisons({ view }: { view: TExperimentView }) {
  const rows = comparisonRows(view.comparisons, view.variants, view.baseline);
  // Before any comparison can be tested (too few runs so far), say why once rather than in every cell's tooltip.
  const untested =
    view.comparisons.length > 0 && view.comparisons.every((c) => c.pValue === null) ? (view.comparisons[0]!.reason ?? null) : null;
  return (
    <section className="panel" style={{ padding: 0 }}>
      <div className="panel-title">
        <h2>Against the baseline{view.baseline ? `, ${view.baseline}` : ""}</h2>
        <span className="muted">
          Welch&apos;s t-test on the logs of the runs&apos; whole-run figures; ~ = not significant at p &lt; 0.05. Green is better, red
          worse; hover for the 95 % CI of the change.
        </span>
      </div>
      {untested && <div className="muted comparisons-note">Not tested yet: {untested}.</div>}
      {rows.length === 0 ? (
        <div className="empty" data-testid="comparisons" data-rows={0}>
          {view.variants.length < 2 ? "One variant only: nothing to compare it with." : "Nothing to compare yet."}
        </div>
      ) : (
        <ScrollBox label="Comparisons with the baseline">
          <table className="data" data-testid="comparisons" data-rows={rows.length}>
            <thead>
              <tr>
                <th>Variant</th>
                {COMPARED.map((m) => (
                  <th key={m.key} className="num">
                    {m.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.variant} data-testid="comparison-row" data-variant={r.variant}>
                  <td className="name">{r.variant}</td>
                  {COMPARED.map((m) => {
                    const c = r.cells[m.key];
                    return (
                      <td key={m.key} className="num" data-metric={m.key} data-verdict={c?.verdict}>
                        {c ? (
                          <span className={`ratio ${c.verdict}`} title={comparisonTitle(c)}>
                            {comparisonText(c)}
                          </span>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}

/** Mean req/s over a two-axis sweep, rows the first axis and columns the second, shaded from low (light) to high (blue). */
export function HeatTables({ view }: { view: TExperimentView }) {
  const tables = heatTables(view.variants, view.definition.sweep ?? [], view.definition.variants);
  if (tables.length === 0) return null;
  return (
    <section className="panel" data-testid="heat-table">
      <h2>
        Mean req/s over the sweep<span className="h2-hint"> — darker is more</span>
      </h2>
      <div className="heat-grids">
        {tables.map((t) => (
          <ScrollBox key={t.title ?? ""} className="heat-grid" label={t.title ? `Mean req/s: ${t.title}` : "Mean req/s over the sweep"}>
            {t.title && <h3>{t.title}</h3>}
            <table className="heat">
              <thead>
                <tr>
                  <th className="corner">
                    {shortField(t.rowField)} ↓ · {shortField(t.colField)} →
                  </th>
                  {t.cols.map((c) => (
                    <th key={String(c)} className="num">
                      {formatValue(c)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {t.rows.map((r, ri) => (
                  <tr key={String(r)}>
                    <th className="num">{formatValue(r)}</th>
                    {t.cols.map((c, ci) => {
                      const cell = t.cells[ri]![ci]!;
                      const shade = heatShade(cell?.mean ?? null, t.min, t.max);
                      return (
                        <td
                          key={String(c)}
                          className="num"
                          style={shade ?? undefined}
                          title={cell ? `${cell.variant}: ${cell.n} run${cell.n === 1 ? "" : "s"}` : undefined}
                          data-testid="heat-cell"
                          data-value={cell?.mean ?? undefined}
                        >
                          {cell?.mean != null ? formatRps(cell.mean) : "—"}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        ))}
      </div>
    </section>
  );
}

/** What the analysis noticed, each with its evidence. */
export function Findings({ findings }: { findings: TExperimentView["findings"] }) {
  return (
    <section className="panel" data-testid="findings">
      <h2>Findings</h2>
      {findings.length === 0 ? <div className="muted">No findings yet.</div> : <FindingList findings={findings} />}
    </section>
  );
}

function formatMetric(metric: string, v: number | null | undefined): string {
  const unit = EXPERIMENT_METRICS.find((m) => m.key === metric)?.unit;
  if (unit === "ms") return formatMs(v);
  if (unit === "%") return formatPct(v);
  return formatRps(v);
}

/** For an experiment started from a preset: the shape expected and the write-up's figures beside the ones measured here. */
export function Reference({ view }: { view: TExperimentView }) {
  const ref = view.reference;
  if (!ref) return null;
  return (
    <ScrollBox as="section" label="What to expect" className="panel" data-testid="experiment-reference">
      <h2>
        What to expect<span className="h2-hint"> — from {ref.source}</span>
      </h2>
      <p style={{ marginTop: 0 }}>{ref.expected}</p>
      {ref.figures.length > 0 && (
        <table className="data" style={{ width: "auto" }}>
          <thead>
            <tr>
              <th>Variant</th>
              <th>Figure</th>
              <th className="num">Write-up</th>
              <th className="num">Here (mean)</th>
            </tr>
          </thead>
          <tbody>
            {ref.figures.map((f, i) => {
              const here = view.variants.find((v) => v.name === f.variant)?.statistics.metrics[f.metric as TMetricKey]?.mean;
              return (
                <tr key={i}>
                  <td>{f.variant}</td>
                  <td className="muted">
                    {EXPERIMENT_METRICS.find((m) => m.key === f.metric)?.label ?? f.metric}
                    {f.note && <span title={f.note}> ({f.note})</span>}
                  </td>
                  <td className="num">{formatMetric(f.metric, f.value)}</td>
                  <td className="num">{formatMetric(f.metric, here)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div className="muted" style={{ fontSize: 12.5, marginTop: 8 }}>
        The write-up ran on other hardware: compare the shape (ratios, where it turns), not the absolute figures.
      </div>
    </ScrollBox>
  );
}
