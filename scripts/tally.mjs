// Prints one closing line over every suite's machine-readable results:
// "tests: N passed (N on a retry), N failed" (", N skipped" when some were skipped), after a line
// for each test that passed only on its retry and each that failed (its report, file and name),
// with the first lines of its error: the end of a CI log, often all that is kept of it, then says
// which test failed and why.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, failedSuites = "0"] = process.argv.slice(2);
let passed = 0,
  failed = 0,
  skipped = 0;
/** @type {string[]} */
const failures = [];
// ANSI colours out, at most 4 lines of at most 300 characters.
const excerpt = (message = "") =>
  message
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split("\n")
    .map((l) => l.trimEnd())
    // Blank lines and stack frames of the test runner or Node itself say nothing of the test.
    .filter((l) => l.trim() !== "" && !/^\s*at .*(node_modules|node:internal)/.test(l))
    .slice(0, 4)
    .map((l) => `    ${l.slice(0, 300)}`)
    .join("\n");
const fail = (report, where, message) => failures.push(`✗ ${report}: ${where}\n${excerpt(message)}`);
/** Tests that passed on their retry (scripts/test.sh retries integration tests once): named, not hidden. */
const retried = [];
const flaky = (report, where, message) => retried.push(`↻ passed on its retry, ${report}: ${where}\n${excerpt(message)}`);
for (const f of readdirSync(dir)) {
  const text = readFileSync(join(dir, f), "utf8");
  if (f.endsWith(".vitest.json")) {
    const r = JSON.parse(text);
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + r.numTodoTests;
    for (const file of r.testResults ?? []) {
      const failedTests = (file.assertionResults ?? []).filter((a) => a.status === "failed");
      for (const a of failedTests) fail(f, `${file.name} > ${a.fullName}`, a.failureMessages?.[0]);
      // Vitest keeps a retried test's earlier errors when it passes.
      for (const a of file.assertionResults ?? [])
        if (a.status === "passed" && a.failureMessages?.length > 0) flaky(f, `${file.name} > ${a.fullName}`, a.failureMessages[0]);
      // A file that failed outside its tests (an import, a hook) has no failed test to name.
      if (file.status === "failed" && failedTests.length === 0) fail(f, file.name, file.message);
    }
  } else if (f.endsWith(".playwright.json")) {
    const report = JSON.parse(text);
    const s = report.stats;
    const walk = (suite, path) => {
      for (const spec of suite.specs ?? [])
        for (const t of spec.tests ?? [])
          if (t.status === "unexpected" || t.status === "flaky") {
            const failedRun = t.status === "unexpected" ? t.results?.at(-1) : t.results?.find((r) => r.status !== "passed");
            const where = `${spec.file} > ${[...path, spec.title].join(" > ")}`;
            (t.status === "flaky" ? flaky : fail)(f, where, failedRun?.error?.message ?? failedRun?.errors?.[0]?.message);
          }
      for (const child of suite.suites ?? []) walk(child, [...path, child.title]);
    };
    for (const suite of report.suites ?? []) walk(suite, []);
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
    for (const m of text.matchAll(/<testcase\b([^>]*?)(?<!\/)>([\s\S]*?)<\/testcase>/g)) {
      const failure = /<(failure|error)\b([^>]*)>([\s\S]*?)<\/\1>|<(failure|error)\b([^>]*)\/>/.exec(m[2]);
      if (!failure) continue;
      const name = /\bname="([^"]*)"/.exec(m[1])?.[1] ?? "?";
      const attrs = failure[2] ?? failure[5] ?? "";
      const message = /\bmessage="([^"]*)"/.exec(attrs)?.[1] ?? failure[3] ?? "";
      fail(
        f,
        name,
        message
          .replace(/&#10;/g, "\n")
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&amp;/g, "&"),
      );
    }
  } else if (f.endsWith(".go.jsonl")) {
    const output = new Map();
    for (const line of text.split("\n")) {
      if (!line.startsWith("{")) continue;
      const e = JSON.parse(line);
      if (!e.Test) continue;
      const key = `${e.Package} > ${e.Test}`;
      if (e.Action === "output") output.set(key, (output.get(key) ?? "") + e.Output);
      if (e.Action === "pass") passed++;
      else if (e.Action === "fail") {
        failed++;
        // Go's own "=== RUN" and "--- FAIL" lines are not the reason.
        fail(f, key, (output.get(key) ?? "").replace(/^\s*(=== \w+|--- FAIL).*$/gm, ""));
      } else if (e.Action === "skip") skipped++;
    }
  }
}
// A suite that failed before writing results (a crash, a build error) still counts as a failure.
if (failed === 0 && Number(failedSuites) > 0) failed = Number(failedSuites);
if (retried.length > 0) console.log(retried.join("\n"));
if (failures.length > 0) console.log(failures.join("\n"));
const flakyNote = retried.length ? ` (${retried.length} on a retry)` : "";
console.log(`tests: ${passed} passed${flakyNote}, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
