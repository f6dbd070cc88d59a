import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TRunSummary, ZRunSummary } from "../contract/results";
import { evidenceLines, hasEvidenceLabel } from "./evidence";
import { experimentStatistics } from "./experiment-report";
import { experimentFindings, FINDING_CODES, runFindings, TFinding } from "./findings";

type Fixture = { hostCpus: number; openModel?: boolean; summary: TRunSummary };
const DIR = new URL("./fixtures/findings/", import.meta.url);
const fixtures = new Map<string, Fixture>(
  readdirSync(DIR).map((f) => {
    const raw = JSON.parse(readFileSync(new URL(f, DIR), "utf8")) as Fixture;
    return [f.replace(/\.json$/, ""), { ...raw, summary: ZRunSummary.parse(raw.summary) }];
  }),
);
const fixture = (name: string) => fixtures.get(name)!.summary;
const noise = { cores: 2, seconds: 10, busySeconds: 9, meanPct: 48.7, p95Pct: 51.5, maxPct: 53, meanCores: 0.97, workerMeanPct: 1.2 };

/** A finding of every code: the recorded runs, the same figures with what they lacked, and experiments over them. */
function everyFinding(): TFinding[] {
  const out: TFinding[] = [];
  for (const f of fixtures.values())
    out.push(...runFindings({ summary: f.summary, hostCpus: f.hostCpus, openModel: f.openModel ?? false }));
  const exp3 = fixture("exp3--3-replicas-connections-3");
  const stop = { container: "sl-1-app-0", title: "replica app-0", role: "app", action: "stop" as const, at: 12.2, until: 21.1 };
  out.push(...runFindings({ summary: { ...exp3, durationSeconds: 30, interference: [stop] }, hostCpus: 2 }));
  out.push(...runFindings({ summary: { ...fixture("exp1--1-replica"), hostNoise: noise }, hostCpus: 2 }));
  // On the test Swarm cluster: three nodes on one machine.
  const nodes = ["node1", "node2", "node3"].map((node) => ({ node, cpus: 2, containers: 2, cpuPct: 60 }));
  out.push(...runFindings({ summary: { ...fixture("exp1--1-replica"), nodes }, hostCpus: 2, sharedMachine: true }));
  const exp6 = fixture("exp6--grpc-retry-off");
  out.push(...runFindings({ summary: { ...exp6, errors: exp6.errors + 5 }, hostCpus: 2 }));
  out.push(...runFindings({ summary: { ...exp3, errors: 30, errorRate: 0.002, errorKinds: { "502": 30 } }, hostCpus: 2 }));
  const exp1 = fixture("exp1--4-replicas");
  out.push(...runFindings({ summary: { ...exp1, backendSource: "unknown", backends: { unknown: exp1.requests } }, hostCpus: 2 }));

  const ns = [1, 2, 3, 4, 6];
  const x = (n: number) => (160 * n) / (1 + 0.05 * (n - 1) + 0.02 * n * (n - 1));
  const rps = [[7319, 14000, 21045], ...ns.slice(1).map((n) => [x(n), x(n) * 1.01, x(n) * 0.99])];
  const stats = experimentStatistics({
    variants: ns.map((n, index) => ({ index, name: `replicas=${n}`, axes: { "topology.service.replicas": n } })),
    baseline: 0,
    sweep: [{ field: "topology.service.replicas", values: ns }],
    runs: rps.flatMap((xs, variant) => xs.map((v) => ({ variant, status: "succeeded" as const, summary: { ...exp3, rps: v } }))),
  });
  const variants = ns.map((n, i) => ({
    name: `replicas=${n}`,
    runs: rps[i]!.map(() => ({ summary: i === 0 ? { ...exp3, hostNoise: noise } : exp3, hostCpus: 2 })),
  }));
  out.push(...experimentFindings(stats, variants, 0));
  const aa = experimentStatistics({
    variants: [
      { index: 0, name: "A", axes: {} },
      { index: 1, name: "A again", axes: {} },
    ],
    baseline: 0,
    sweep: [],
    runs: [1740.2, 1703.1, 1617.3, 1698.2, 1809.3, 1721.3].map((v, i) => ({
      variant: i < 3 ? 0 : 1,
      status: "succeeded" as const,
      summary: { ...exp3, rps: v },
    })),
  });
  out.push(
    ...experimentFindings(
      aa,
      [
        { name: "A", runs: [] },
        { name: "A again", runs: [] },
      ],
      0,
    ),
  );
  return out;
}

describe("finding evidence", () => {
  const all = everyFinding();

  it("covers every finding code", () => {
    expect(FINDING_CODES.filter((c) => !all.some((f) => f.code === c))).toEqual([]);
    expect(all.filter((f) => !(FINDING_CODES as readonly string[]).includes(f.code)).map((f) => f.code)).toEqual([]);
  });

  it("has a label and a unit for every key any finding emits", () => {
    const unlabelled = new Set(
      all.flatMap((f) =>
        Object.keys(f.evidence)
          .filter((k) => !hasEvidenceLabel(k))
          .map((k) => `${f.code}.${k}`),
      ),
    );
    expect([...unlabelled]).toEqual([]);
    // Read as words: no raw object, no JSON.
    for (const f of all)
      for (const line of evidenceLines(f.evidence)) expect(line.text, `${f.code}.${line.key}`).not.toMatch(/\[object|^[{[]/);
  });

  it("reads the recorded runs' evidence with units: the throttled replica of experiment 3, the starved pool of experiment 2", () => {
    const throttled = runFindings({ summary: fixture("exp3--1-replica-connections-1"), hostCpus: 2 }).find(
      (f) => f.code === "replicas_throttled",
    )!;
    // Today's page showed "pctOfLimit 103.4 throttledPerSecond 10.11".
    expect(evidenceLines(throttled.evidence)).toEqual([
      { key: "pctOfLimit", label: "CPU used (median, % of its limit)", text: "103 %" },
      { key: "throttledPerSecond", label: "Throttled CFS periods per second", text: "10" },
      {
        key: "periodsClamped",
        label: "Periods",
        text: "not recorded in this run: throttled periods capped at the 10 a 100 ms period allows per second",
      },
      {
        key: "throttledMsPerSecond",
        label: "Time throttled per second (its threads added up: can exceed 1,000 ms)",
        text: expect.stringMatching(/^[\d,]+ ms$/) as string,
      },
      { key: "replicas", label: "Replicas", text: "1" },
    ]);
    const starved = runFindings({ summary: fixture("exp2--blocking"), hostCpus: 2 }).find((f) => f.code === "pool_starvation")!;
    expect(evidenceLines(starved.evidence).find((l) => l.key === "pool")!.text).toMatch(
      /^pool size 16, busy at most 16, .*queued at most 184/,
    );
  });

  it("says an unknown figure is unknown, not 0 or null", () => {
    expect(evidenceLines({ drainSeconds: null, serviceCpuPct: undefined, ratio: null })).toEqual([
      { key: "drainSeconds", label: "Time to catch up after the load", text: "not within the drain window" },
      { key: "ratio", label: "Ratio to the baseline (geometric means)", text: "unknown" },
    ]);
  });
});
