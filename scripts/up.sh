#!/usr/bin/env bash
# Brings up a working lab: Docker engine, control-plane Postgres + Redis (unless DATABASE_URL /
# REDIS_URL are given), migrations, lab images, the worker and the dashboard on :3000.
. "$(dirname "$0")/lib.sh"

PORT="${PORT:-3000}"
ensure_node; ensure_pnpm; ensure_go; ensure_tools; ensure_docker; ensure_workspace
control_plane scalelab 0
build_lab_images

log "building the dashboard (next build into apps/web/$WEB_DIST)"
build_web "$WEB_DIST" "$STATE/logs/web-build.log" || die "next build failed, see $STATE/logs/web-build.log"

# A previous instance is stopped first (its worker may take up to STOP_TIMEOUT s to tear a run
# down). The worker refuses to start while another worker holds this database.
stop_pidfile "$STATE/worker.pid"; stop_pidfile "$STATE/web.pid"
start_worker worker
start_web web "$PORT" "$WEB_DIST"
wait_worker worker 60 || { stop_pidfile "$STATE/web.pid"; die "the worker did not start, see $STATE/logs/worker.log"; }
wait_http "http://127.0.0.1:$PORT/api/v1/runs" 90 || { tail -30 "$STATE/logs/web.log" >&2; die "the dashboard did not answer on :$PORT, see $STATE/logs/web.log"; }
kill -0 "$(cat "$STATE/worker.pid")" 2>/dev/null || { tail -30 "$STATE/logs/worker.log" >&2; die "the worker exited, see $STATE/logs/worker.log"; }

cat <<MSG

  Scalelab is up.
    dashboard   http://localhost:$PORT
    REST API    http://localhost:$PORT/api/v1/openapi.json
    logs        $STATE/logs/{web,worker}.log
    stop        bash scripts/down.sh   (add --all to stop Postgres and Redis too)
    images      testbed, nginx and k6 are ready; wrk, HAProxy, Kafka, Cassandra, the hot-key servers and toxiproxy are built on first use

MSG
