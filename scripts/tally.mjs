// Prints one closing line over every suite's machine-readable results:
// "tests: N passed, N failed" (", N skipped" when some were skipped).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, failedSuites = "0"] = process.argv.slice(2);
let passed = 0,
  failed = 0,
  skipped = 0;
for (const f of readdirSync(dir)) {
  const text = readFileSync(join(dir, f), "utf8");
  if (f.endsWith(".vitest.json")) {
    const r = JSON.parse(text);
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + r.numTodoTests;
  } else if (f.endsWith(".playwright.json")) {
    const s = JSON.parse(text).stats;
    passed += s.expected + s.flaky;
    failed += s.unexpected;
    skipped += s.skipped;
  } else if (f.endsWith(".junit.xml")) {
    // JUnit XML (schemathesis): the counts of the root element, <testsuites> or a single <testsuite>.
    const root = /<testsuites?\b([^>]*)>/.exec(text)?.[1] ?? "";
    const count = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? 0);
    const [tests, failures, errors, skips] = ["tests", "failures", "errors", "skipped"].map(count);
    passed += tests - failures - errors - skips;
    failed += failures + errors;
    skipped += skips;
  } else if (f.endsWith(".go.jsonl")) {
    for (const line of text.split("\n")) {
      if (!line.startsWith("{")) continue;
      const e = JSON.parse(line);
      if (!e.Test) continue;
      if (e.Action === "pass") passed++;
      else if (e.Action === "fail") failed++;
      else if (e.Action === "skip") skipped++;
    }
  }
}
// A suite that failed before writing results (a crash, a build error) still counts as a failure.
if (failed === 0 && Number(failedSuites) > 0) failed = Number(failedSuites);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
