#!/usr/bin/env bash
# Stops the dashboard and the worker started by scripts/up.sh; --all stops the control plane too.
. "$(dirname "$0")/lib.sh"
stop_pidfile "$STATE/web.pid"
stop_pidfile "$STATE/worker.pid"
log "dashboard and worker stopped"
if [ "${1:-}" = "--all" ]; then
  (cd "$ROOT/tooling/lab" && pnpm --silent lab control-plane down)
fi
