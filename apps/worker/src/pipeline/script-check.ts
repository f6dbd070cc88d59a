import { describeLoad, NO_SCENARIOS_MESSAGE, scriptFacts, ScriptFacts } from "@scalelab/scenarios/loadgen";
import { RunPlan } from "@scalelab/scenarios/plan";
import { RunContext } from "./context";
import { dockerMessage } from "./provision";

/** k6 compiles a 256 KB script in well under a second; the bound covers a cold engine. */
const CHECK_TIMEOUT_MS = 60_000;

/**
 * k6's error, without logrus's `time=… level=error msg="…"` wrapping and k6's "could not
 * initialize" preamble: "file:///scalelab/user.js: Line 3:12 Unexpected token ; (and 1 more errors)".
 */
export function k6Error(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.map((l) => /level=error msg="((?:[^"\\]|\\.)*)"/.exec(l)?.[1]).filter((m): m is string => m !== undefined);
  const text = (errors.length > 0 ? errors.join("; ") : lines.slice(-5).join("; "))
    .replace(/\\"/g, '"')
    .replace(/\\[nt]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return text.replace(/^could not initialize '[^']*': /, "").replace(/^could not load JS test '[^']*': /, "");
}

/**
 * workload.script: k6 itself compiles the wrapper and the user's script (`k6 inspect
 * --execution-requirements`) in a throwaway container of the lab's k6 image without a network,
 * before any container of the topology starts. A script that does not compile fails the run with
 * k6's message and line; otherwise the run learns whose scenarios run and how long they may take.
 */
export async function checkScript(ctx: RunContext, plan: RunPlan): Promise<ScriptFacts | undefined> {
  const spec = plan.scriptCheck;
  if (!spec) return undefined;
  const { deps, report, run } = ctx;
  await report.detail("checking workload.script with k6 inspect");
  let result;
  try {
    result = await deps.provisioner.runIsolated(spec, CHECK_TIMEOUT_MS);
  } catch (err) {
    throw new Error(`could not run the check of workload.script (image ${spec.image}): ${dockerMessage(err)}`);
  }
  ctx.signal.throwIfAborted();
  if (result.exitCode === undefined) throw new Error(`k6 inspect of workload.script did not finish within ${CHECK_TIMEOUT_MS / 1000} s`);
  if (result.exitCode !== 0) {
    const message = k6Error(result.stderr || result.stdout);
    // The wrapper's own refusal is not a compile error of the script.
    throw new Error(message.includes(NO_SCENARIOS_MESSAGE) ? NO_SCENARIOS_MESSAGE : `workload.script does not compile: ${message}`);
  }
  const facts = scriptFacts(result.stdout, run.workload);
  const message = `workload.script compiles: ${describeLoad(run.workload, facts.ownScenarios)}${
    facts.ownScenarios ? `, up to ${facts.totalSeconds} s with graceful stops` : ""
  }`;
  await report.detail(message);
  await report.event("info", message);
  if (facts.thresholds > 0) {
    await report.event(
      "warn",
      `the script's ${facts.thresholds} threshold(s) are not evaluated: the lab runs k6 with --no-thresholds (a crossed threshold would cut its whole-run figures); its checks are counted`,
    );
  }
  return facts;
}
