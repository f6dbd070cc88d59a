import { TRunSummary } from "../contract/results";
import { describe, expect, it } from "vitest";
import { experimentStatistics } from "../analysis/experiment-report";
import { barChartSvg, experimentReportHtml, niceTicks, TReportInput } from "./report-html";

const summary = (rps: number): TRunSummary => ({
  requests: rps * 10,
  rps,
  errors: 0,
  errorRate: 0,
  latencyMs: { avg: 5, p50: 4, p90: 6, p95: 7, p99: 9, max: 12 },
});
const names = ["1 replica", '<script>alert("x")</script>'];
const rps = [
  [169, 171, 165],
  [450, 441, 462],
];
const stats = experimentStatistics({
  variants: names.map((name, index) => ({ index, name, axes: {} })),
  baseline: 0,
  sweep: [],
  runs: rps.flatMap((xs, variant) => xs.map((x) => ({ variant, status: "succeeded" as const, summary: summary(x) }))),
});
const input: TReportInput = {
  id: "e1",
  name: "Replicas & <limits>",
  status: "succeeded",
  createdAt: "2026-11-25T13:00:00.000Z",
  repetitions: 3,
  settleSeconds: 5,
  baseline: names[0]!,
  progress: { total: 6, succeeded: 6, failed: 0, retries: 0 },
  definition: { name: "</pre><script>1</script>" },
  variants: names.map((name, i) => ({
    name,
    runs: rps[i]!.map((x, r) => ({ id: `run-${i}-${r}`, repetition: r, attempt: 1, status: "succeeded", rps: x })),
    statistics: stats.variants[i]!,
  })),
  comparisons: stats.comparisons,
  usl: null,
  uslNote: null,
  findings: [
    {
      code: "replicas_throttled",
      level: "info",
      message: "at their limit",
      evidence: { pctOfLimit: 99, pValue: 0.0035021346, cpuPctByRole: { app: 101.23456 } },
    },
  ],
  reference: {
    source: "EXPERIMENTS.md §3",
    expected: "3 replicas ≈ 2.5–3×",
    figures: [{ variant: "1 replica", metric: "rps", value: 169 }],
  },
};

describe("experimentReportHtml", () => {
  const html = experimentReportHtml(input, { generatedAt: "2026-11-25T14:00:00.000Z" });

  it("is one self-contained page: no script, nothing fetched", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)=/i);
  });

  it("escapes every user string", () => {
    expect(html).toContain("Replicas &amp; &lt;limits&gt;");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain("&lt;/pre&gt;&lt;script&gt;1&lt;/script&gt;");
  });

  it("draws a bar per variant with its CI whiskers, the write-up's marker, and the benchstat comparison", () => {
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs).toHaveLength(2);
    expect(svgs[0]!.match(/class="bar"/g)).toHaveLength(2);
    expect(svgs[0]!.match(/class="whisker"/g)).toHaveLength(6);
    expect(svgs[0]!.match(/class="ref"/g)).toHaveLength(1);
    expect(html).toMatch(/class="num better"[^>]*>\+\d+\.\d% \(p=0\.000\)/);
    expect(html).toContain("at their limit");
    // Evidence as words with units, not keys ("pctOfLimit: 99").
    expect(html).toContain(
      "CPU used (median, % of its limit): 99 % · p-value (Welch&#39;s t on the logs): 0.004 · CPU by role (% of one core, or of the limit): app 101 %",
    );
  });
});

describe("barChartSvg", () => {
  it("a noisy variant's whisker stays above the axis: the log-scale CI of 7,319, 14,000 and 21,045 req/s", () => {
    const noisy = experimentStatistics({
      variants: [{ index: 0, name: "1 replica", axes: {} }],
      baseline: 0,
      sweep: [],
      runs: [7319, 14000, 21045].map((x) => ({ variant: 0, status: "succeeded" as const, summary: summary(x) })),
    }).variants[0]!.metrics.rps;
    // The plain t interval was 14,121 ± 17,051: -2,929 – 31,172, a whisker below the axis.
    expect(noisy.mean! - 17051).toBeLessThan(0);
    expect(noisy.ciLow).toBeGreaterThan(3000);
    const svg = barChartSvg([{ label: "1 replica", value: noisy.mean, low: noisy.ciLow, high: noisy.ciHigh }], {
      unit: "req/s",
      title: "t",
    });
    const axis = Number(/<line x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)" y2="[\d.]+" class="axis"\/>/.exec(svg)![1]);
    const whiskers = [...svg.matchAll(/y1="([\d.-]+)" y2="([\d.-]+)" class="whisker"/g)].flatMap((m) => [Number(m[1]), Number(m[2])]);
    expect(whiskers).toHaveLength(6);
    for (const y of whiskers) expect(y).toBeLessThan(axis);
  });

  it("a bar without figures draws no bar; the axis starts at 0", () => {
    const svg = barChartSvg(
      [
        { label: "a", value: null, low: null, high: null },
        { label: "b", value: 10, low: 8, high: 12 },
      ],
      { unit: "req/s", title: "t" },
    );
    expect(svg.match(/class="bar"/g)).toHaveLength(1);
  });
});

describe("niceTicks", () => {
  it("round steps from 0 past the maximum", () => {
    expect(niceTicks(462)).toEqual([0, 100, 200, 300, 400, 500]);
    expect(niceTicks(0.9)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});

describe("the report's regression check", () => {
  it("shows the verdict in words and each variant's change with its ratio, CI and p, escaped", () => {
    const html = experimentReportHtml(
      {
        ...input,
        regression: {
          baselineId: "b-1",
          verdict: "regressed",
          worseBy: 10,
          p: 0.05,
          matchedBy: "name",
          reason: null,
          results: [
            {
              variant: names[1]!,
              baselineVariant: names[1]!,
              metric: "rps",
              baselineFigure: 710,
              figure: 342,
              baselineRuns: 3,
              runs: 3,
              ratio: 0.482,
              ciLow: 0.431,
              ciHigh: 0.539,
              pValue: 0.001,
              regressed: true,
              reason: "rps 51.8 % lower than the baseline",
            },
          ],
        },
      },
      { generatedAt: "x" },
    );
    expect(html).toContain('<h2>Regression check: <span class="fail">Regression: worse than the baseline beyond the tolerance</span></h2>');
    expect(html).toContain("more than 10 % at p &lt; 0.05");
    expect(html).toContain(
      '<td class="num">710</td><td class="num">342</td><td>\u221251.8 % (ratio 0.482, 95 % CI 0.431–0.539, p=0.001)<div class="sub">rps 51.8 % lower than the baseline</div></td><td class="fail">regressed</td>',
    );
    expect(html).not.toContain("<script>alert");
    expect(experimentReportHtml(input, { generatedAt: "x" })).not.toContain("Regression check");
  });
});

describe("the report's thresholds", () => {
  it("show the verdict and each threshold with its actual figure, escaped", () => {
    const html = experimentReportHtml(
      {
        ...input,
        thresholds: {
          passed: false,
          results: [
            { kind: "run", variant: names[1]!, metric: "p95", op: "<", value: 250, actual: 7, runs: 3, failedRuns: 0, passed: true },
            {
              kind: "comparison",
              variant: names[1]!,
              baseline: names[0]!,
              metric: "rps",
              compare: "baseline",
              worseBy: 5,
              p: 0.05,
              actual: -12.5,
              ratio: 0.875,
              ciLow: 0.8,
              ciHigh: 0.95,
              pValue: 0.004,
              passed: false,
              reason: "12.5 % lower",
            },
          ],
        },
      },
      { generatedAt: "2026-11-25T14:00:00.000Z" },
    );
    expect(html).toContain('<h2>Thresholds: <span class="fail">failed</span></h2>');
    expect(html).toContain('<td>p95&lt;250</td><td>7 ms (worst of 3 runs)</td><td class="pass">pass</td>');
    expect(html).toContain(
      '<td>rps no worse than 5 % vs baseline (p &lt; 0.05)</td><td>\u221212.5 % (ratio 0.875, 95 % CI 0.800–0.950, p=0.004)</td><td class="fail">fail</td>',
    );
    expect(html).not.toContain("<script>alert");
    expect(experimentReportHtml(input, { generatedAt: "x" })).not.toContain("Thresholds");
  });
});
