/**
 * A stand-in for the contract's `parseThreshold` (packages/scenarios/src/contract/thresholds.ts on
 * the thresholds branch), with its signature and text form, until that branch is merged: see
 * ./thresholds.ts. The lab validates the object again when the run is created.
 */
const METRICS = ["rps", "p50", "p90", "p95", "p99", "max", "errorRate", "checks"] as const;
const OPS = ["<=", ">=", "<", ">"] as const;
const LATENCY = new Set(["p50", "p90", "p95", "p99", "max"]);
const FRACTION = new Set(["errorRate", "checks"]);
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export type TThreshold = { metric: (typeof METRICS)[number]; op: (typeof OPS)[number]; value: number };
export type TParsedThreshold = { ok: true; threshold: TThreshold } | { ok: false; error: string };

export function parseThreshold(text: string): TParsedThreshold {
  const trimmed = text.trim();
  const fail = (error: string): TParsedThreshold => ({
    ok: false,
    error: `"${trimmed}": ${error} (e.g. p95<250, rps>=1000, errorRate<0.01)`,
  });
  const m = /^([A-Za-z0-9]+)\s*([<>=!]*)\s*(.*)$/.exec(trimmed);
  const metric = METRICS.find((x) => x.toLowerCase() === m?.[1]?.toLowerCase());
  if (!m || !metric) return fail(`metric must be one of: ${METRICS.join(", ")}`);
  const op = OPS.find((o) => o === m[2]);
  if (!op) return fail(`op must be one of: < <= > >=`);
  let valueText = m[3]!.trim();
  let scale = 1;
  if (LATENCY.has(metric) && /ms$/i.test(valueText)) valueText = valueText.slice(0, -2).trim();
  else if (FRACTION.has(metric) && valueText.endsWith("%")) [valueText, scale] = [valueText.slice(0, -1).trim(), 0.01];
  const value = Number(valueText) * scale;
  if (!NUMBER.test(valueText) || value < 0) return fail("value must be a number ≥ 0");
  if (FRACTION.has(metric) && value > 1) return fail(`value of ${metric} is a fraction: between 0 and 1 (0.01 = 1 %)`);
  return { ok: true, threshold: { metric, op, value } };
}
