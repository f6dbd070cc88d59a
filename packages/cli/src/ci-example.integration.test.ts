import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, integrationWebUrl } from "./env";
import { explain as explainResult, runCommand, type Result } from "./testing";

/**
 * docs/CI.md's job, as it is written there: examples/ci/check.sh with examples/ci/experiment.json
 * against a real lab (SCALELAB_WEB_URL), shortened with the CLI's own --set (5 s loads, 3
 * repetitions). The first marks the baseline of its name and passes; the second runs the service at
 * half its CPU and must fail the job with exit 1 on the regression, each keeping its HTML report.
 * Both run the service at a tenth of a CPU or less per replica: at the example's 0.5, the 2-core
 * machine the suite shares with its other lanes (and k6) bounds the throughput before the
 * service's limit does, and half the limit did not show (a CI run passed the second check so).
 */
const WEB = integrationWebUrl();
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CHECK = path.join(ROOT, "examples/ci/check.sh");
const EXPERIMENT = path.join(ROOT, "examples/ci/experiment.json");
const NAME = `ci example ${randomUUID().slice(0, 8)}`;
const SHORT = [
  "--name",
  NAME,
  "--set",
  "base.workload.durationSeconds=5",
  "--set",
  "repetitions=3",
  "--set",
  "base.topology.service.cpus=0.1",
  "--set",
  "settleSeconds=1",
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "scalelab-ci-example-"));
});
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

const check = (report: string, args: string[]): Promise<Result> =>
  runCommand("bash", [CHECK, EXPERIMENT, ...SHORT, ...args], {
    cwd: dir,
    env: childEnv({ SCALELAB_URL: WEB, SCALELAB_REPORT: report, SCALELAB_RESULT: `${report}.json` }),
  });
const explain = (r: Result) => explainResult(r, 3000);

describe("docs/CI.md's job (examples/ci/check.sh)", () => {
  it("passes and marks the baseline, then fails with exit 1 when the service has half the CPU", async () => {
    const first = await check("baseline.html", ["--mark-baseline"]);
    expect(first.code, explain(first)).toBe(0);
    const baseline = JSON.parse(await readFile(path.join(dir, "baseline.html.json"), "utf8")) as { id: string; name: string };
    expect(baseline.name).toBe(NAME);
    const baselineReport = await readFile(path.join(dir, "baseline.html"), "utf8");
    expect(baselineReport).toMatch(/^<!doctype html>/i);
    expect(baselineReport).toContain(NAME);

    const second = await check("report.html", ["--set", "base.topology.service.cpus=0.05"]);
    expect(second.code, explain(second)).toBe(1);
    expect(second.stderr).toMatch(/regress/i);
    const result = JSON.parse(await readFile(path.join(dir, "report.html.json"), "utf8")) as {
      regression: { baselineId: string; verdict: string } | null;
    };
    expect(result.regression?.baselineId).toBe(baseline.id);
    expect(result.regression?.verdict).toBe("regressed");
    expect(await readFile(path.join(dir, "report.html"), "utf8")).toMatch(/regress/i);
  });
});
