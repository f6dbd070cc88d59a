"use client";

import { formatRatio, overlaySeries } from "@scalelab/scenarios/analysis";
import { isTerminal } from "@scalelab/scenarios/contract";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Fragment, useMemo } from "react";
import { formatBytes, formatCount, formatMs, formatRps } from "~/lib/format";
import { useTRPC } from "~/trpc/client";
import { PALETTE, TimeChart } from "./charts";
import { FaultCompare } from "./fault-compare";
import { StatusBadge } from "./status";
import { ScrollBox } from "./scroll-region";

function formatFigure(unit: string, v: number | null): string {
  if (v === null) return "—";
  switch (unit) {
    case "ms":
      return formatMs(v);
    case "req/s":
      return formatRps(v);
    case "%":
      return `${v.toFixed(2)} %`;
    case "/s":
      return `${v.toFixed(1)}/s`;
    case "ms/s":
      return `${formatMs(v)}/s`;
    case "B/s":
      return `${formatBytes(v)}/s`;
    default:
      return formatCount(v);
  }
}

const GROUPS = ["Load", "Latency", "Containers (CPU, throttling, network)", "Worker pool", "Broker"] as const;

/** Which block of the table a figure belongs to, by its key. */
function groupOf(key: string): (typeof GROUPS)[number] {
  const [head, tail] = key.split(".");
  if (tail === undefined) return "Load";
  if (head === "latency") return "Latency";
  if (head === "pool") return "Worker pool";
  if (head === "broker") return "Broker";
  return "Containers (CPU, throttling, network)";
}

type Run = { id: string; name: string | null };
type SetupRow = { key: string; label: string; values: string[]; differs: boolean };

/** The setup rows in which the runs differ, first thing on the page: what the comparison is about. */
function WhatDiffers({
  rows,
  runs,
  colors,
  label,
}: {
  rows: SetupRow[];
  runs: Run[];
  colors: Map<string, string>;
  label: (r: Run) => string;
}) {
  const differing = rows.filter((r) => r.differs);
  return (
    <section className="panel differs-panel" data-testid="compare-differs">
      <h2>What differs</h2>
      <div className="differs-runs">
        {runs.map((r) => (
          <span key={r.id}>
            <span className="swatch" style={{ background: colors.get(r.id) }} />
            {label(r)}
          </span>
        ))}
      </div>
      {differing.length === 0 ? (
        <div className="muted">The runs have the same setup: any difference below is run-to-run variation.</div>
      ) : (
        <ul className="differs-list">
          {differing.map((row) => (
            <li key={row.key} data-testid={`differs-${row.key}`}>
              <strong>{row.label}</strong>
              {row.values.map((v, i) => (
                <span key={runs[i]!.id} className="differs-value" title={label(runs[i]!)}>
                  <span className="swatch" style={{ background: colors.get(runs[i]!.id) }} />
                  {v}
                </span>
              ))}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

type Group = { id: string; label: string; runIds: string[]; counted: string[] };
type Comparison = { group: string; n: number; baselineN: number; verdict: string; text: string };
type VerdictRow = { key: string; label: string; comparisons: Comparison[] };

const VERDICT_WORDS: Record<string, string> = {
  better: "better",
  worse: "worse",
  not_distinguishable: "not distinguishable",
  unknown: "no verdict",
};
/** The colour of a verdict: only a tested, significant difference is coloured. */
const VERDICT_CLASS: Record<string, string> = {
  better: "better",
  worse: "worse",
  not_distinguishable: "same",
  cannot_tell: "unknown",
  unknown: "unknown",
};

const sideText = (g: Group) => `${g.id}: ${g.label} (${g.counted.length} run${g.counted.length === 1 ? "" : "s"})`;

/** An error of the compare as sentences: the issues' messages name the field and its range. */
function errorText(error: { message: string; data?: { issues?: { path: string; message: string }[] | null } | null }): string {
  const issues = error.data?.issues ?? [];
  return issues.length > 0 ? issues.map((i) => i.message).join("; ") : error.message;
}

/** Per scored figure, each side against the baseline's side. */
function Verdicts({ rows, groups, baseGroup }: { rows: VerdictRow[]; groups: Group[]; baseGroup: Group }) {
  const others = groups.filter((g) => g !== baseGroup);
  // A figure no side has a value of (no broker in any run) is left out.
  const shown = rows.filter((r) => r.comparisons.some((c) => c.n > 0 || c.baselineN > 0));
  return (
    <section className="panel" data-testid="compare-verdicts">
      <h2>Verdict against {sideText(baseGroup)}</h2>
      <div className="muted" style={{ marginBottom: 8 }}>
        Runs with the same topology, workload and faults are one side, its runs repetitions. Each side is compared with the baseline&apos;s
        as in experiments: the ratio of geometric means, its 95 % confidence interval and Welch&apos;s t-test on the logarithms; a
        difference is better or worse only when p &lt; 0.05.
      </div>
      {others.length === 0 ? (
        <div data-testid="compare-one-side">
          All runs share one definition: they are repetitions of one side, with nothing to compare them against. How far they differ from
          each other is the run-to-run noise.
        </div>
      ) : (
        <ScrollBox label="Verdicts against the baseline">
          <table className="data" data-testid="verdict-table">
            <thead>
              <tr>
                <th>Figure</th>
                {others.map((g) => (
                  <th key={g.id} data-testid="verdict-header" data-group={g.id}>
                    {sideText(g)} vs {baseGroup.id}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr key={r.key} data-testid={`verdict-${r.key}`}>
                  <td>{r.label}</td>
                  {r.comparisons.map((c) => (
                    <td key={c.group} className="wrap" data-testid="verdict-cell" data-group={c.group} data-verdict={c.verdict}>
                      {/* "cannot tell" is said by the text itself ("differs by +12 %: one run per side cannot tell …"). */}
                      {c.verdict !== "cannot_tell" && (
                        <>
                          <span className={`ratio ${VERDICT_CLASS[c.verdict] ?? "unknown"}`}>
                            {VERDICT_WORDS[c.verdict] ?? c.verdict}
                          </span>{" "}
                        </>
                      )}
                      <span className="muted">{c.text}</span>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}

type Repeat = {
  name: string;
  base: Record<string, unknown>;
  variants: { name: string; patch: Record<string, unknown> }[];
  repetitions: number;
  baseline: string;
};

/** Where a side has one run: the page says it cannot tell, and offers to repeat every side as an experiment. */
function SingleRunNotice({ single, groups, repeat }: { single: Group[]; groups: Group[]; repeat: Repeat | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.experiments.create.mutationOptions({ onSuccess: (ref) => router.push(`/experiments/${ref.id}`) }));
  const both = groups.length === 2 ? "both" : `all ${groups.length}`;
  return (
    <div className="notice" data-testid="compare-single" style={{ marginBottom: 16 }}>
      <p style={{ margin: "0 0 8px" }}>
        One run per side cannot tell a difference from noise: {single.map((g) => `${g.id} (${g.label})`).join(", ")}{" "}
        {single.length === 1 ? "has" : "have"} fewer than two finished runs, so their differences below are what these runs measured, not a
        verdict. A run of the same setup can differ by tens of percent on a busy host.
      </p>
      {repeat && (
        <>
          <button
            className="btn btn-primary"
            data-testid="compare-repeat"
            disabled={create.isPending}
            onClick={() => create.mutate(repeat)}
          >
            {create.isPending ? "Creating…" : `Repeat ${both} as an experiment`}
          </button>{" "}
          <span className="muted">
            {repeat.repetitions} runs of each side&apos;s setup, interleaved, {repeat.variants.length * repeat.repetitions} runs in all.
          </span>
          {create.error && (
            <div className="error-box" data-testid="compare-repeat-error" style={{ marginTop: 8 }}>
              Could not create the experiment: {errorText(create.error)}
            </div>
          )}
        </>
      )}
    </div>
  );
}

type Reason = { code: string; cells: ({ level: string; message: string } | null)[]; differs: boolean };

/** Each run's findings in its column, one row per kind of finding: a finding one side has and the other lacks explains the difference. */
function Reasons({
  reasons,
  runs,
  colors,
  label,
  sideOf,
}: {
  reasons: Reason[];
  runs: Run[];
  colors: Map<string, string>;
  label: (r: Run) => string;
  sideOf: (id: string) => string;
}) {
  // The columns side by side: A's runs, then B's, … (the cells come in the order of `runs`).
  const columns = runs.map((r, i) => ({ run: r, i })).sort((a, b) => sideOf(a.run.id).localeCompare(sideOf(b.run.id)) || a.i - b.i);
  return (
    <section className="panel" style={{ padding: 0 }} data-testid="compare-reasons">
      <h2 style={{ padding: "14px 16px 0" }}>Reasons: the runs&apos; findings side by side</h2>
      {reasons.length === 0 ? (
        <div className="empty">No run has a finding: nothing in their figures stands out.</div>
      ) : (
        <ScrollBox label="Findings of the compared runs">
          <table className="data">
            <thead>
              <tr>
                <th>Finding</th>
                {columns.map(({ run: r }) => (
                  <th key={r.id} className="run-head">
                    <span className="swatch" style={{ background: colors.get(r.id) }} />
                    {label(r)} <span className="muted">({sideOf(r.id)})</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {reasons.map((row) => (
                <tr key={row.code} data-testid={`reason-${row.code}`} data-differs={row.differs || undefined}>
                  <td className="muted">
                    {row.code.replaceAll("_", " ")}
                    {row.differs && <span className="differs-tag">differs</span>}
                  </td>
                  {columns.map(({ run: r, i }) => {
                    const c = row.cells[i];
                    return (
                      <td
                        key={r.id}
                        className="wrap"
                        style={{ minWidth: 240, fontSize: 12.5 }}
                        data-testid="reason-cell"
                        data-run-id={r.id}
                      >
                        {c ? (
                          <>
                            {c.level === "warn" && (
                              <span className="tag tag-warn" style={{ marginLeft: 0, marginRight: 6 }}>
                                warning
                              </span>
                            )}
                            {c.message}
                          </>
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

export function CompareView({ ids, baseline: chosen }: { ids: string[]; baseline?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const result = useQuery({
    ...trpc.runs.compare.queryOptions({ ids, ...(chosen && { baseline: chosen }) }),
    enabled: ids.length >= 2,
    refetchInterval: (q) => (q.state.data?.runs.some((r) => !isTerminal(r.status)) ? 3_000 : false),
  });

  const colors = useMemo(() => new Map(ids.map((id, i) => [id, PALETTE[i % PALETTE.length]!])), [ids]);
  const rps = useMemo(
    () =>
      result.data
        ? overlaySeries(
            result.data.samples.map((s) => ({ id: s.runId, samples: s.samples })),
            (s) => s.requests,
          )
        : [],
    [result.data],
  );
  const p95 = useMemo(
    () =>
      result.data
        ? overlaySeries(
            result.data.samples.map((s) => ({ id: s.runId, samples: s.samples })),
            (s) => s.latencyMs?.p95 ?? null,
          )
        : [],
    [result.data],
  );

  if (ids.length < 2) {
    return (
      <div className="panel empty">
        Pick at least two runs in the <Link href="/">runs list</Link> to compare them.
      </div>
    );
  }
  if (result.isPending) return <div className="empty">Loading…</div>;
  if (result.isError) {
    return (
      <div className="panel error-box" data-testid="compare-error">
        Could not compare: {errorText(result.error)}.
      </div>
    );
  }

  const { runs, setup, groups } = result.data;
  // A figure no run has (no broker in any of them) is left out rather than shown as a row of dashes.
  const figures = result.data.figures.filter((f) => f.cells.some((c) => c.value !== null));
  const label = (r: Run) => r.name ?? r.id.slice(0, 8);
  const series = runs.map((r) => ({ key: r.id, label: label(r), color: colors.get(r.id)! }));
  const baseline = runs.find((r) => r.id === result.data.baseline) ?? runs[0]!;
  const others = runs.filter((r) => r !== baseline);
  const sideOf = (id: string) => groups.find((g) => g.runIds.includes(id))?.id ?? "?";
  const baseGroup = groups.find((g) => g.runIds.includes(baseline.id))!;
  const single = groups.length > 1 ? groups.filter((g) => result.data.singleSides.includes(g.id)) : [];
  const chooseBaseline = (id: string) =>
    router.replace(`/compare?ids=${ids.map(encodeURIComponent).join(",")}&baseline=${encodeURIComponent(id)}`);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Compare {runs.length} runs</h1>
          <div className="sub">
            <label>
              Baseline{" "}
              <select data-testid="compare-baseline" value={baseline.id} onChange={(e) => chooseBaseline(e.target.value)}>
                {runs.map((r) => (
                  <option key={r.id} value={r.id}>
                    {sideOf(r.id)}: {label(r)}
                  </option>
                ))}
              </select>
            </label>{" "}
            Verdicts are to its side, ratios to the run. Each run&apos;s percentiles come from its own summary.
          </div>
        </div>
        <Link className="btn" href="/">
          Back to runs
        </Link>
      </div>

      {runs.some((r) => r.summary?.loadgen?.saturated) && (
        <div className="notice" data-testid="compare-loadgen-saturated" style={{ marginBottom: 16 }}>
          The load generator was saturated in{" "}
          {runs
            .filter((r) => r.summary?.loadgen?.saturated)
            .map(label)
            .join(", ")}
          : those figures are bounded by k6, not by the service, and the ratios may understate the difference.
        </div>
      )}

      {single.length > 0 && <SingleRunNotice single={single} groups={groups} repeat={result.data.repeat} />}

      <Verdicts rows={result.data.verdicts} groups={groups} baseGroup={baseGroup} />

      <WhatDiffers rows={setup} runs={runs} colors={colors} label={label} />

      <Reasons reasons={result.data.reasons} runs={runs} colors={colors} label={label} sideOf={sideOf} />

      <ScrollBox as="section" label="Figures of the compared runs" className="panel" style={{ padding: 0 }}>
        <table className="data" data-testid="compare-table">
          <thead>
            <tr>
              <th>Figure</th>
              {runs.map((r) => (
                <th key={r.id} className="num run-head" data-testid="compare-run-header">
                  <span className="swatch" style={{ background: colors.get(r.id) }} />
                  <Link href={`/runs/${r.id}`}>{label(r)}</Link>
                  <span className="muted"> ({sideOf(r.id)})</span>
                  {r.id === baseline.id && <span className="muted"> (baseline)</span>}
                </th>
              ))}
              {others.map((r) => (
                <th key={`ratio-${r.id}`} className="num run-head" data-testid="ratio-header">
                  {label(r)} / {label(baseline)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <td className="muted">Status</td>
              {runs.map((r) => (
                <td key={r.id} className="num">
                  <StatusBadge status={r.status} />
                </td>
              ))}
              {others.map((r) => (
                <td key={r.id} />
              ))}
            </tr>
            {GROUPS.map((group) => {
              const rows = figures.filter((f) => groupOf(f.key) === group);
              if (rows.length === 0) return null;
              return (
                <Fragment key={group}>
                  <tr className="group-row">
                    <td colSpan={1 + runs.length + others.length}>{group}</td>
                  </tr>
                  {rows.map((f) => (
                    <tr key={f.key} data-testid={`figure-${f.key}`}>
                      <td>{f.label}</td>
                      {f.cells.map((c) => (
                        <td key={c.runId} className="num">
                          {formatFigure(f.unit, c.value)}
                        </td>
                      ))}
                      {f.cells
                        .filter((c) => c.runId !== baseline.id)
                        .map((c) => (
                          <td key={`ratio-${c.runId}`} className="num" data-testid="ratio-cell">
                            {/* One run against another: a ratio, not a verdict (those are above, per side). */}
                            <span
                              className="ratio"
                              title={
                                f.better === "none" ? "context, not a score" : `${f.better} is better; one run each, see the verdict above`
                              }
                            >
                              {formatRatio(c.ratio)}
                            </span>
                          </td>
                        ))}
                    </tr>
                  ))}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </ScrollBox>

      <FaultCompare runs={runs} colors={colors} label={label} />

      {/* A long run's points (min and max per bucket, service.ts) fall on other seconds than a short run's: joined, not gaps. */}
      <div className="grid-2" style={{ marginBottom: 16 }}>
        <section className="panel">
          <h2>Throughput (req/s)</h2>
          <TimeChart testId="compare-chart-rps" data={rps} unit="req/s" series={series} empty="No samples." connectNulls />
        </section>
        <section className="panel">
          <h2>Latency p95 (ms, per second)</h2>
          <TimeChart testId="compare-chart-p95" data={p95} unit="ms" series={series} empty="No samples." connectNulls peaks="max" />
        </section>
      </div>

      <ScrollBox as="section" label="Setups of the compared runs" className="panel" style={{ padding: 0 }}>
        <table className="data" data-testid="setup-table">
          <thead>
            <tr>
              <th>Setup</th>
              {runs.map((r) => (
                <th key={r.id} className="run-head">
                  {label(r)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {setup.map((row) => (
              <tr key={row.key} className={row.differs ? "differs" : ""} data-differs={row.differs || undefined}>
                <td className="muted">
                  {row.label}
                  {row.differs && <span className="differs-tag">differs</span>}
                </td>
                {row.values.map((v, i) => (
                  // A long value (a fault timeline) wraps instead of widening the table.
                  <td key={i} className="wrap">
                    {v}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </>
  );
}
