import type { CompareResult, EngineView, History, HostBounds, PresetView, Sample, TokenView } from "./api-types";
import { figure } from "./outcome";

/** Pure formatting of what the CLI prints; unit-tested in format.test.ts. */

export const shortId = (id: string) => id.slice(0, 8);

/** 75 → "1:15", 3725 → "1:02:05". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

/** req/s so far: the mean of the latest seconds' requests (at most `last` of them); null before the first second. */
export function recentRps(samples: readonly Pick<Sample, "t" | "requests">[], last = 5): number | null {
  if (samples.length === 0) return null;
  const tail = [...samples].sort((a, b) => a.t - b.t).slice(-last);
  return tail.reduce((n, s) => n + s.requests, 0) / tail.length;
}

export type RunProgress = {
  id: string;
  status: string;
  step: string;
  stepDetail: string | null;
  elapsedSeconds: number;
  rps: number | null;
};

/** What a run is doing: its pipeline step while it runs (`provisioning`, `warmup`, `running` the load, …), else its status. */
const doing = (p: Pick<RunProgress, "status" | "step">) => (p.status === "running" ? p.step : p.status);

/** The one updating line on a terminal: `run 3f2b9c4e  running (4/8 s, 95 req/s)  0:14  99.7 req/s`. */
export function runProgressLine(p: RunProgress): string {
  const detail = p.stepDetail ? ` (${p.stepDetail})` : "";
  const rps = p.rps === null ? "" : `  ${figure(p.rps)} req/s`;
  return `run ${shortId(p.id)}  ${doing(p)}${detail}  ${duration(p.elapsedSeconds)}${rps}`;
}

/** A step's own line when stderr is no terminal (a CI log): `[0:14] run 3f2b9c4e: warmup`. */
export function runStepLine(p: RunProgress): string {
  return `[${duration(p.elapsedSeconds)}] run ${shortId(p.id)}: ${doing(p)}${p.stepDetail ? ` (${p.stepDetail})` : ""}`;
}

export type ExperimentProgress = {
  id: string;
  status: string;
  total: number;
  finished: number;
  succeeded: number;
  current: number | null;
  secondsLeft: number;
  elapsedSeconds: number;
};

export function experimentProgressLine(p: ExperimentProgress): string {
  const current = p.current !== null ? `  run ${p.current} of ${p.total}` : `  ${p.finished} of ${p.total} runs done`;
  const left = p.status === "queued" || p.status === "running" ? `  ~${duration(p.secondsLeft)} left` : "";
  return `experiment ${shortId(p.id)}  ${p.status}${current} (${p.succeeded} succeeded)${left}  ${duration(p.elapsedSeconds)}`;
}

export function experimentStepLine(p: ExperimentProgress): string {
  return `[${duration(p.elapsedSeconds)}] experiment ${shortId(p.id)}: ${p.status}, ${p.finished} of ${p.total} runs done (${p.succeeded} succeeded)`;
}

/** Columns padded to their widest cell; no trailing spaces. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}

type RunRow = {
  id: string;
  name: string | null;
  status: string;
  step: string;
  createdAt: string;
  summary: { rps: number; latencyMs: { p95: number } } | null;
};

/** A run in a listing: its id's start, name, status, req/s and p95 when it has a summary, and when it was created. */
export function runRows(runs: readonly RunRow[]): string[] {
  return table([
    ["ID", "NAME", "STATUS", "REQ/S", "P95 MS", "CREATED"],
    ...runs.map((r) => [
      shortId(r.id),
      r.name ?? "",
      r.status === "running" ? `running: ${r.step}` : r.status,
      r.summary ? figure(r.summary.rps) : "",
      r.summary ? figure(r.summary.latencyMs.p95) : "",
      r.createdAt.replace("T", " ").slice(0, 19),
    ]),
  ]);
}

const GIB = 1024 ** 3;

export function statusLines(opts: { url: string; host: HostBounds; running: RunRow[]; queued: RunRow[]; latest: RunRow[] }): string[] {
  const { url, host, running, queued, latest } = opts;
  const lines = [
    `lab ${url}`,
    `host: ${host.cpus} CPUs, ${(host.memoryBytes / GIB).toFixed(1)} GiB (${host.source === "docker" ? "the worker's Docker engine" : "the web's own host: no worker has reported"})`,
    `queue: ${running.length} running, ${queued.length} queued`,
  ];
  for (const r of running) lines.push(`  running ${shortId(r.id)} ${r.name ?? ""} (${r.step})`.trimEnd());
  for (const r of queued.slice(0, 10)) lines.push(`  queued  ${shortId(r.id)} ${r.name ?? ""}`.trimEnd());
  if (queued.length > 10) lines.push(`  … and ${queued.length - 10} more queued`);
  lines.push("", "latest runs:", ...(latest.length > 0 ? runRows(latest) : ["  none yet"]));
  return lines;
}

export function presetRows(presets: readonly Pick<PresetView, "name" | "title" | "runs" | "estimatedSeconds">[]): string[] {
  return table([
    ["NAME", "RUNS", "ESTIMATE", "TITLE"],
    ...presets.map((p) => [p.name, String(p.runs), duration(p.estimatedSeconds), p.title]),
  ]);
}

/** The lab's API tokens: never the tokens themselves (the lab keeps only their hashes), their first characters. */
export function tokenRows(
  tokens: readonly Pick<TokenView, "id" | "name" | "prefix" | "createdAt" | "lastUsedAt" | "revokedAt">[],
): string[] {
  if (tokens.length === 0) return ["no tokens yet: scalelab token create <name>"];
  const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "never");
  return table([
    ["ID", "NAME", "TOKEN", "CREATED", "LAST USED", "STATUS"],
    ...tokens.map((t) => [
      t.id,
      t.name,
      `${t.prefix}…`,
      day(t.createdAt),
      day(t.lastUsedAt),
      t.revokedAt ? `revoked ${day(t.revokedAt)}` : "active",
    ]),
  ]);
}

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/** The engines and their nodes: one row per node, the engine's name on its first; an unreachable engine with why. */
export function engineRows(engines: readonly EngineView[]): string[] {
  const rows: string[][] = [["ENGINE", "KIND", "NODE", "ROLE", "CPUS", "MEMORY", "STATE"]];
  for (const e of engines) {
    if (!e.reachable) {
      rows.push([e.name, e.kind, "-", "-", "-", "-", `unreachable: ${e.error ?? "no answer"}`]);
      continue;
    }
    e.nodes.forEach((n, i) =>
      rows.push([
        i === 0 ? e.name : "",
        i === 0 ? e.kind : "",
        n.name,
        n.role,
        String(n.cpus),
        gib(n.memoryBytes),
        `${n.state}, ${n.availability}`,
      ]),
    );
  }
  return table(rows);
}

/**
 * The compare's figures as a table: one row per figure some run has, one column per run, each
 * against the baseline; then each side's statistical verdict where the sides have repetitions.
 */
export function compareLines(
  result: Pick<CompareResult, "runs" | "figures" | "baseline" | "groups" | "verdicts" | "singleSides">,
): string[] {
  const baselineId = result.baseline;
  const ids = result.runs.map((r) => r.id);
  const header = ["FIGURE", ...ids.map((id) => `${shortId(id)}${id === baselineId ? " (baseline)" : ""}`)];
  const measured = result.figures.filter((f) => f.cells.some((c) => c.value !== null));
  const rows = measured.map((f) => {
    const cells = ids.map((id) => {
      const c = f.cells.find((x) => x.runId === id);
      if (!c || c.value === null) return "–";
      const ratio =
        c.ratio !== null && c.verdict !== "baseline"
          ? ` ×${c.ratio.toFixed(2)}${c.verdict === "better" || c.verdict === "worse" ? ` ${c.verdict}` : ""}`
          : "";
      return `${figure(c.value)}${ratio}`;
    });
    return [`${f.label}${f.unit ? ` (${f.unit})` : ""}`, ...cells];
  });
  const lines = table([header, ...rows]);
  const sides = new Map(result.groups.map((g) => [g.id, g]));
  // Verdicts of sides with repetitions only; a side of one run cannot tell a difference from noise (said below).
  const verdicts = result.verdicts.flatMap((v) =>
    v.comparisons
      .filter((c) => c.verdict !== "cannot_tell" && c.verdict !== "unknown")
      .map((c) => `  ${v.label}: ${sides.get(c.group)?.label ?? c.group} (${c.n} vs ${c.baselineN} runs) ${c.text}`),
  );
  if (verdicts.length > 0) lines.push("", "each side against the baseline's (Welch's t on the logs, p < 0.05):", ...verdicts);
  if (result.singleSides.length > 0) {
    lines.push(
      "",
      `sides with one run (${result.singleSides.join(", ")}): a difference cannot be told from noise; repeat them (an experiment)`,
    );
  }
  return lines;
}

type SummaryLike = {
  rps: number;
  requests: number;
  errors: number;
  errorRate: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
};

/** A finished run in one line: `1,234 req/s, p50 1.2 ms, p95 3.4 ms, p99 5 ms, max 41 ms, 0 errors of 61,700 requests`. */
export function summaryLine(s: SummaryLike): string {
  const l = s.latencyMs;
  const errors = s.errors === 0 ? "0 errors" : `${s.errors.toLocaleString("en-US")} errors (${figure(s.errorRate * 100)} %)`;
  return `${figure(s.rps)} req/s, p50 ${figure(l.p50)} ms, p95 ${figure(l.p95)} ms, p99 ${figure(l.p99)} ms, max ${figure(l.max)} ms, ${errors} of ${s.requests.toLocaleString("en-US")} requests`;
}

type Description = { n: number; mean: number | null; sd: number | null };
type VariantLike = { name: string; statistics: { runs: number; metrics: Partial<Record<string, Description>>; noisy: string[] } };
type ComparisonLike = { variant: string; metric: string; text: string };

/** An experiment's variants: mean ± sd of req/s and p95 over their succeeded runs, and each against the baseline (req/s). */
export function experimentLines(view: { baseline: string | null; variants: VariantLike[]; comparisons: ComparisonLike[] }): string[] {
  const meanSd = (d: Description | undefined, unit: string) =>
    d && d.mean !== null ? `${figure(d.mean)}${d.sd !== null && d.n > 1 ? ` ± ${figure(d.sd)}` : ""}${unit}` : "–";
  const against = (name: string) => view.comparisons.find((c) => c.variant === name && c.metric === "rps")?.text ?? "";
  return table([
    ["VARIANT", "RUNS", "REQ/S", "P95", "REQ/S VS BASELINE"],
    ...view.variants.map((v) => [
      `${v.name}${v.name === view.baseline ? " (baseline)" : ""}`,
      String(v.statistics.runs),
      meanSd(v.statistics.metrics.rps, ""),
      meanSd(v.statistics.metrics["latencyMs.p95"], " ms"),
      v.name === view.baseline ? "" : against(v.name),
    ]),
  ]);
}

const VERDICT_WORDS = { passed: "passed", regressed: "REGRESSED", cannot_tell: "cannot tell" } as const;

/** A name's history as a table, oldest first: when, id, status, req/s and p95 (per variant for experiments), the verdict, the baseline starred. */
export function historyLines(h: Pick<History, "name" | "kind" | "points">): string[] {
  const rows: string[][] = [
    ["", "created", "id", "status", ...(h.kind === "experiment" ? ["variant"] : []), "req/s", "p95 ms", "regression"],
  ];
  for (const p of h.points) {
    const head = [p.baseline ? "*" : "", p.createdAt.slice(0, 19).replace("T", " "), shortId(p.id), p.status];
    const verdict = p.verdict ? VERDICT_WORDS[p.verdict] : "—";
    const num = (v: number | null) => (v === null ? "—" : figure(v));
    if (p.variants) {
      p.variants.forEach((v, i) =>
        rows.push([...(i === 0 ? head : ["", "", "", ""]), v.variant, num(v.rps), num(v.p95), i === 0 ? verdict : ""]),
      );
      if (p.variants.length === 0) rows.push([...head, "—", "—", "—", verdict]);
    } else rows.push([...head, num(p.rps), num(p.p95), verdict]);
  }
  return [`${h.kind === "run" ? "runs" : "experiments"} named "${h.name}" (* the baseline)`, ...table(rows)];
}
