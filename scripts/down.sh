#!/usr/bin/env bash
# Stops the dashboard and the worker started by scripts/up.sh; --all stops the control plane too.
. "$(dirname "$0")/lib.sh"
# Each stop says what it found and did: SIGTERM to the process group, wait (up to STOP_TIMEOUT s,
# the worker tears its current run down) until every process of it exited, else SIGKILL.
stop_pidfile "$STATE/web.pid"
stop_pidfile "$STATE/worker.pid"
if [ "${1:-}" = "--all" ]; then
  (cd "$ROOT/tooling/lab" && pnpm --silent lab control-plane down)
fi
