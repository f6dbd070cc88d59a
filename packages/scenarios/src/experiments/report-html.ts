import { EXPERIMENT_METRICS, TExperimentComparison, TMetricKey, TUslResult, TVariantStatistics } from "../analysis/experiment-report";
import { evidenceLines } from "../analysis/evidence";
import { TFinding } from "../analysis/findings";
import { experimentThresholdActual, experimentThresholdText, TExperimentThresholdsOutcome } from "../analysis/experiment-thresholds";
import { REGRESSION_VERDICT_TEXT, regressionChangeText, TRegression } from "../analysis/regression";

/**
 * The self-contained HTML report of an experiment: one file, inline CSS and SVG charts, no script
 * and nothing fetched, so it opens from a ticket or a mail with no server. The charts are drawn
 * here as SVG because the dashboard's chart library (Recharts 3) draws only in a browser. Every
 * string from a user (names, the definition) is escaped.
 */

export type TReportInput = {
  id: string;
  name: string;
  status: string;
  createdAt: string;
  repetitions: number;
  settleSeconds: number;
  baseline: string | null;
  progress: { total: number; succeeded: number; failed: number; retries: number };
  definition: unknown;
  variants: {
    name: string;
    runs: { id: string; repetition: number; attempt: number; status: string; rps: number | null }[];
    statistics: TVariantStatistics;
  }[];
  comparisons: TExperimentComparison[];
  usl: TUslResult | null;
  uslNote: string | null;
  findings: TFinding[];
  /** The verdict of its thresholds; null (or absent) without any. */
  thresholds?: TExperimentThresholdsOutcome | null;
  /** Its check against the baseline experiment of its name; null (or absent) without one. */
  regression?: TRegression | null;
  reference: { source: string; expected: string; figures: { variant: string; metric: string; value: number; note?: string }[] } | null;
};

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const fmt = (v: number | null | undefined, digits?: number): string => {
  if (v === null || v === undefined || !Number.isFinite(v)) return "—";
  const d = digits ?? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  return v.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
};

/** Round numbers for an axis from 0 to at least `max`. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const W = 720;
const H = 280;
const PAD = { left: 64, right: 16, top: 16, bottom: 64 };

export type TBar = { label: string; value: number | null; low: number | null; high: number | null; reference?: number | null };

/** Bars with 95 % CI whiskers and, where given, the write-up's figure as a marker. */
export function barChartSvg(bars: readonly TBar[], opts: { unit: string; title: string }): string {
  const top = Math.max(1, ...bars.flatMap((b) => [b.value ?? 0, b.high ?? 0, b.reference ?? 0]));
  const ticks = niceTicks(top);
  const yMax = ticks.at(-1)!;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + ih - (v / yMax) * ih;
  const slot = iw / Math.max(1, bars.length);
  const bw = Math.min(60, slot * 0.6);
  const parts: string[] = [];
  for (const t of ticks) {
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t)}" y2="${y(t)}" class="grid"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${y(t) + 4}" text-anchor="end" class="tick">${fmt(t)}</text>`);
  }
  bars.forEach((b, i) => {
    const cx = PAD.left + slot * (i + 0.5);
    const label = b.label.length > 22 ? `${b.label.slice(0, 21)}…` : b.label;
    parts.push(
      `<text x="${cx}" y="${H - PAD.bottom + 16}" text-anchor="middle" class="tick"><title>${escapeHtml(b.label)}</title>${escapeHtml(label)}</text>`,
    );
    if (b.value !== null) {
      parts.push(
        `<rect x="${cx - bw / 2}" y="${y(b.value)}" width="${bw}" height="${Math.max(0, y(0) - y(b.value))}" class="bar"><title>${escapeHtml(b.label)}: ${fmt(b.value)} ${escapeHtml(opts.unit)}</title></rect>`,
      );
    }
    if (b.low !== null && b.high !== null) {
      parts.push(`<line x1="${cx}" x2="${cx}" y1="${y(b.low)}" y2="${y(b.high)}" class="whisker"/>`);
      for (const v of [b.low, b.high]) parts.push(`<line x1="${cx - 8}" x2="${cx + 8}" y1="${y(v)}" y2="${y(v)}" class="whisker"/>`);
    }
    if (b.reference !== undefined && b.reference !== null) {
      const ry = y(b.reference);
      parts.push(
        `<path d="M${cx + bw / 2 + 4} ${ry} l6 -6 l6 6 l-6 6 z" class="ref"><title>write-up: ${fmt(b.reference)} ${escapeHtml(opts.unit)}</title></path>`,
      );
    }
  });
  parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(0)}" y2="${y(0)}" class="axis"/>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(opts.title)}" class="chart">${parts.join("")}</svg>`;
}

/** The USL: measured points, the fitted curve and its peak. */
export function uslChartSvg(usl: TUslResult): string {
  const all = [...usl.points, ...usl.curve];
  const xTicks = niceTicks(Math.max(...all.map((p) => p.n)), 6);
  const yTicks = niceTicks(Math.max(...all.map((p) => p.x)));
  const xMax = xTicks.at(-1)!;
  const yMax = yTicks.at(-1)!;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (n: number) => PAD.left + (n / xMax) * iw;
  const y = (v: number) => PAD.top + ih - (v / yMax) * ih;
  const parts: string[] = [];
  for (const t of yTicks) {
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t)}" y2="${y(t)}" class="grid"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${y(t) + 4}" text-anchor="end" class="tick">${fmt(t)}</text>`);
  }
  for (const t of xTicks) parts.push(`<text x="${x(t)}" y="${H - PAD.bottom + 16}" text-anchor="middle" class="tick">${fmt(t)}</text>`);
  parts.push(`<text x="${PAD.left + iw / 2}" y="${H - PAD.bottom + 36}" text-anchor="middle" class="tick">${escapeHtml(usl.field)}</text>`);
  parts.push(`<polyline points="${usl.curve.map((p) => `${x(p.n).toFixed(1)},${y(p.x).toFixed(1)}`).join(" ")}" class="curve"/>`);
  for (const p of usl.points)
    parts.push(
      `<circle cx="${x(p.n).toFixed(1)}" cy="${y(p.x).toFixed(1)}" r="4" class="point"><title>N=${fmt(p.n)}: ${fmt(p.x)} req/s</title></circle>`,
    );
  if (usl.ceilingX !== null && usl.ceilingX <= yMax) {
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(usl.ceilingX)}" y2="${y(usl.ceilingX)}" class="peak"/>`);
    parts.push(
      `<text x="${W - PAD.right - 4}" y="${y(usl.ceilingX) - 4}" text-anchor="end" class="tick">λ/σ ≈ ${fmt(usl.ceilingX)}</text>`,
    );
  }
  if (usl.peakN !== null && usl.peakN <= xMax) {
    parts.push(`<line x1="${x(usl.peakN)}" x2="${x(usl.peakN)}" y1="${PAD.top}" y2="${y(0)}" class="peak"/>`);
    parts.push(`<text x="${x(usl.peakN) + 4}" y="${PAD.top + 12}" class="tick">N* ≈ ${fmt(usl.peakN, 1)}</text>`);
  }
  parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(0)}" y2="${y(0)}" class="axis"/>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="USL fit" class="chart">${parts.join("")}</svg>`;
}

const CSS = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2937;margin:32px auto;max-width:1040px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}.sub{color:#6b7280}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border-bottom:1px solid #e5e7eb;padding:6px 8px;text-align:left;vertical-align:top}
th{font-weight:600;color:#374151;background:#f9fafb}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.better{color:#047857;font-weight:600}.worse{color:#b91c1c;font-weight:600}.same,.unknown{color:#6b7280}
.warn{color:#b45309}.pass{color:#047857;font-weight:600}.fail{color:#b91c1c;font-weight:600}.noisy{color:#b45309;font-size:12px}.finding{margin:6px 0}.evidence{color:#6b7280;font-size:12px}
.chart .grid{stroke:#e5e7eb}.chart .axis{stroke:#9ca3af}.chart .tick{font-size:11px;fill:#6b7280}.chart .bar{fill:#6366f1}
.chart .whisker{stroke:#111827;stroke-width:1.5}.chart .ref{fill:#f59e0b}.chart .curve{fill:none;stroke:#6366f1;stroke-width:2}
.chart .point{fill:#111827}.chart .peak{stroke:#f59e0b;stroke-dasharray:4 4}.legend{font-size:12px;color:#6b7280}
pre{background:#f9fafb;border:1px solid #e5e7eb;padding:12px;overflow:auto;font-size:12px}`;

const refFor = (input: TReportInput, variant: string, metric: TMetricKey) =>
  input.reference?.figures.find((f) => f.variant === variant && f.metric === metric)?.value ?? null;

function barsOf(input: TReportInput, metric: TMetricKey): TBar[] {
  return input.variants.map((v) => {
    const d = v.statistics.metrics[metric];
    return { label: v.name, value: d.mean, low: d.ciLow, high: d.ciHigh, reference: refFor(input, v.name, metric) };
  });
}

const meanSd = (d: { mean: number | null; sd: number | null }) => `${fmt(d.mean)}${d.sd !== null ? ` ± ${fmt(d.sd)}` : ""}`;

export function experimentReportHtml(input: TReportInput, opts: { generatedAt: string }): string {
  const e = escapeHtml;
  const metrics: TMetricKey[] = ["rps", "latencyMs.p50", "latencyMs.p95", "latencyMs.p99"];
  const label = (k: TMetricKey) => EXPERIMENT_METRICS.find((m) => m.key === k)!.label;
  const hasRef = (input.reference?.figures.length ?? 0) > 0;

  const variantRows = input.variants
    .map((v) => {
      const s = v.statistics;
      const rps = s.metrics.rps;
      const ref = refFor(input, v.name, "rps");
      return `<tr><td>${e(v.name)}${v.name === input.baseline ? ' <span class="sub">(baseline)</span>' : ""}</td><td class="num">${s.runs}${s.failedRuns ? ` <span class="warn">(${s.failedRuns} failed)</span>` : ""}</td>
<td class="num">${meanSd(rps)}${s.noisy.includes("rps") ? ` <span class="noisy">CV ${fmt((rps.cv ?? 0) * 100, 0)} %</span>` : ""}</td><td class="num">${rps.ciLow !== null ? `${fmt(rps.ciLow)} – ${fmt(rps.ciHigh)}` : "—"}</td>
${metrics
  .slice(1)
  .map((k) => `<td class="num">${meanSd(s.metrics[k])}</td>`)
  .join("")}${hasRef ? `<td class="num">${ref !== null ? fmt(ref) : "—"}</td>` : ""}</tr>`;
    })
    .join("\n");

  const others = input.variants.filter((v) => v.name !== input.baseline);
  const cmpRows = others
    .map((v) => {
      const cells = metrics.map((k) => {
        const c = input.comparisons.find((x) => x.variant === v.name && x.metric === k);
        if (!c) return "<td>—</td>";
        const ci =
          c.ciLow !== null
            ? ` title="ratio ${fmt(c.ratio, 3)}, 95 % CI ${fmt(c.ciLow, 3)}–${fmt(c.ciHigh, 3)}"`
            : c.reason
              ? ` title="${e(c.reason)}"`
              : "";
        return `<td class="num ${c.verdict}"${ci}>${e(c.text)}</td>`;
      });
      return `<tr><td>${e(v.name)}</td>${cells.join("")}</tr>`;
    })
    .join("\n");

  const findings = input.findings.length
    ? input.findings
        .map(
          (f) =>
            `<div class="finding${f.level === "warn" ? " warn" : ""}">${e(f.message)}<div class="evidence">${e(
              evidenceLines(f.evidence)
                .map((l) => `${l.label}: ${l.text}`)
                .join(" · "),
            )}</div></div>`,
        )
        .join("\n")
    : `<p class="sub">No findings.</p>`;

  const thresholds = input.thresholds
    ? `<h2>Thresholds: <span class="${input.thresholds.passed ? "pass" : "fail"}">${input.thresholds.passed ? "passed" : "failed"}</span></h2>
<table><thead><tr><th>variant</th><th>threshold</th><th>actual</th><th>result</th></tr></thead><tbody>${input.thresholds.results
        .map(
          (r) =>
            `<tr><td>${e(r.variant)}</td><td>${e(experimentThresholdText(r))}</td><td>${e(experimentThresholdActual(r))}</td><td class="${r.passed ? "pass" : "fail"}">${r.passed ? "pass" : "fail"}</td></tr>`,
        )
        .join("\n")}</tbody></table>`
    : "";

  const r = input.regression;
  const regression = r
    ? `<h2>Regression check: <span class="${r.verdict === "regressed" ? "fail" : r.verdict === "passed" ? "pass" : ""}">${e(REGRESSION_VERDICT_TEXT[r.verdict])}</span></h2>
<p class="sub">Against the baseline experiment <code>${e(r.baselineId)}</code> of this name: a regression is req/s lower or p95 higher by more than ${fmt(r.worseBy, 0)} % at p &lt; ${r.p}.${r.reason ? ` ${e(r.reason)}.` : ""}</p>
${
  r.results.length
    ? `<table><thead><tr><th>variant</th><th>metric</th><th class="num">baseline</th><th class="num">this</th><th>change</th><th>result</th></tr></thead><tbody>${r.results
        .map(
          (x) =>
            `<tr><td>${e(x.variant ?? "")}${x.baselineVariant !== null && x.baselineVariant !== x.variant ? ` <span class="sub">(vs ${e(x.baselineVariant)})</span>` : ""}</td><td>${x.metric === "rps" ? "req/s" : "p95 (ms)"}</td><td class="num">${fmt(x.baselineFigure)}</td><td class="num">${fmt(x.figure)}</td><td>${e(regressionChangeText(x))}${x.reason ? `<div class="sub">${e(x.reason)}</div>` : ""}</td><td class="${x.regressed ? "fail" : "pass"}">${x.regressed ? "regressed" : "ok"}</td></tr>`,
        )
        .join("\n")}</tbody></table>`
    : ""
}`
    : "";

  const runs = input.variants
    .flatMap((v) =>
      v.runs.map(
        (r) =>
          `<tr><td>${e(v.name)}</td><td class="num">${r.repetition + 1}${r.attempt > 1 ? " (retry)" : ""}</td><td>${e(r.status)}</td><td class="num">${fmt(r.rps)}</td><td><code>${e(r.id)}</code></td></tr>`,
      ),
    )
    .join("\n");

  const usl = input.usl
    ? `${uslChartSvg(input.usl)}<p>σ (contention) ${fmt(input.usl.sigma, 4)} · κ (coherency) ${input.usl.kappa.toExponential(2)} · λ ${fmt(input.usl.lambda)} req/s · N* ${input.usl.peakN !== null ? fmt(input.usl.peakN, 1) : `none (no coherency cost${input.usl.ceilingX !== null ? `; levels off at λ/σ ≈ ${fmt(input.usl.ceilingX)} req/s` : ""})`} · R² ${fmt(input.usl.r2, 3)}</p>${input.uslNote ? `<p class="sub">Caveat: ${e(input.uslNote)}.</p>` : ""}`
    : input.uslNote
      ? `<p class="sub">No USL fit: ${e(input.uslNote)}</p>`
      : "";

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(input.name)} · Scalelab report</title><style>${CSS}</style></head>
<body>
<h1>${e(input.name)}</h1>
<div class="sub">Scalelab experiment ${e(input.id)} · ${e(input.status)} · created ${e(input.createdAt)} · report generated ${e(opts.generatedAt)}</div>
<p>${input.variants.length} variant(s) × ${input.repetitions} repetition(s), interleaved, ${input.settleSeconds} s settle pause; ${input.progress.total} run(s): ${input.progress.succeeded} succeeded, ${input.progress.failed} failed, ${input.progress.retries} retried.</p>
${input.reference ? `<h2>What to expect (${e(input.reference.source)})</h2><p>${e(input.reference.expected)}</p>` : ""}
${thresholds}
${regression}
<h2>Findings</h2>
${findings}
<h2>Variants</h2>
<p class="legend">Mean ± standard deviation over the succeeded runs' whole-run figures; 95 % confidence interval of the mean (Student's t); CV shown when above 10 %.</p>
<table><thead><tr><th>variant</th><th class="num">runs</th><th class="num">req/s</th><th class="num">req/s 95 % CI</th>${metrics
    .slice(1)
    .map((k) => `<th class="num">${label(k)} (ms)</th>`)
    .join("")}${hasRef ? `<th class="num">write-up req/s</th>` : ""}</tr></thead>
<tbody>${variantRows}</tbody></table>
${
  others.length
    ? `<h2>Against the baseline${input.baseline ? ` (${e(input.baseline)})` : ""}</h2>
<p class="legend">Ratio of geometric means as a change, Welch's t-test on the logs of the runs' figures; ~ = not significant at p &lt; 0.05.</p>
<table><thead><tr><th>variant</th>${metrics.map((k) => `<th class="num">${label(k)}</th>`).join("")}</tr></thead><tbody>${cmpRows}</tbody></table>`
    : ""
}
<h2>Requests per second</h2>
${barChartSvg(barsOf(input, "rps"), { unit: "req/s", title: "Requests per second by variant" })}
<p class="legend">Bars: mean; whiskers: 95 % confidence interval${hasRef ? "; ◆ the write-up's figure" : ""}.</p>
<h2>Latency p95 (ms)</h2>
${barChartSvg(barsOf(input, "latencyMs.p95"), { unit: "ms", title: "p95 latency by variant" })}
${usl ? `<h2>Scalability (Universal Scalability Law)</h2>${usl}` : ""}
<h2>Runs</h2>
<table><thead><tr><th>variant</th><th class="num">repetition</th><th>status</th><th class="num">req/s</th><th>run</th></tr></thead><tbody>${runs}</tbody></table>
<h2>Definition</h2>
<pre>${e(JSON.stringify(input.definition, null, 2))}</pre>
</body></html>
`;
}
