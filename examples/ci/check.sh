#!/usr/bin/env bash
# One CI step (docs/CI.md): runs an experiment through the lab's CLI, waits for it, keeps its HTML
# report, and exits with the CLI's code:
#   0 passed; 1 a threshold failed or the experiment regressed against its name's baseline;
#   2 the experiment failed or was cancelled; 3 usage, connection or a request the lab refused.
#
#   bash examples/ci/check.sh <experiment.json> [scalelab experiment options: --set path=value,
#                              --threshold 'p95<250', --name, --mark-baseline]
#
# Environment: SCALELAB_URL and SCALELAB_TOKEN (read by the CLI), SCALELAB_REPORT (the HTML report,
# default scalelab-report.html) and SCALELAB_RESULT (the finished experiment as JSON, default
# scalelab-result.json). The test suite runs this very script (packages/cli/src/ci-example.integration.test.ts).
set -uo pipefail

[ $# -ge 1 ] || { echo "usage: $0 <experiment.json> [scalelab experiment options]" >&2; exit 3; }
file=$1
shift
home=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
report=${SCALELAB_REPORT:-scalelab-report.html}
result=${SCALELAB_RESULT:-scalelab-result.json}
# The CLI itself, with Node.js (which the lab needs anyway): no pnpm on PATH needed, and relative
# paths are read from where this script was called.
scalelab() { node "$home/packages/cli/bin/scalelab.js" "$@"; }
# Only the CLI's codes leave this script; anything else (a shell's 126/127, a signal) is a 3.
finish() {
  case "$1" in 0 | 1 | 2 | 3 | 130) exit "$1" ;; *) echo "unexpected exit $1: counted as 3" >&2; exit 3 ;; esac
}
: >"$result" || { echo "cannot write $result (SCALELAB_RESULT)" >&2; exit 3; }

# The finished experiment goes to $result; why it did not pass goes to stderr (the job's log).
scalelab experiment "$file" "$@" --wait --json >"$result"
code=$?

id=$(node -e '
  try { const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (typeof e.id === "string") console.log(e.id); } catch {}
' "$result")
if [ -z "$id" ]; then
  echo "no experiment came back (exit $code): see the lines above" >&2
  [ "$code" = 0 ] && code=3
  finish "$code"
fi
if scalelab export "$id" --format html -o "$report"; then
  echo "experiment $id: exit $code, report $report" >&2
else
  echo "experiment $id: exit $code, but its report could not be written" >&2
  [ "$code" -eq 0 ] && code=3
fi
finish "$code"
