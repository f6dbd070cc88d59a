#!/usr/bin/env bash
# The Compose deployment (docker-compose.yml): Postgres, Redis, the dashboard and the worker.
#
#   bash scripts/compose.sh up [ARGS]     install what is missing, then `docker compose up -d --build --wait ARGS`
#   bash scripts/compose.sh down [ARGS]   `docker compose down ARGS` (add -v to remove the database too)
#   bash scripts/compose.sh CMD [ARGS]    any other `docker compose` command (ps, logs, …) on the same file and .env
#
# `up` makes sure of: a Docker engine, the Compose v2 plugin (compiled once where the system has
# none), the lab's base and core images on the engine (`pnpm images --lab`: the worker's runs use
# them, and every Compose image is built FROM the base), the secrets in .env (generated, mode 0600,
# never printed) and the host's extra certificate authorities in the app image's build context.
# After that, plain `docker compose up` works as well. Ports, project name and the base image come
# from the environment or .env: see docker-compose.yml.
. "$(dirname "$0")/lib.sh"

cmd="${1:-}"
[ -n "$cmd" ] || die "usage: bash scripts/compose.sh up|down|ps|logs [docker compose arguments]"
shift

case "$cmd" in
  up)
    check_compose_settings
    ensure_docker; ensure_compose
    ensure_node; ensure_pnpm; ensure_go; ensure_tools; ensure_workspace
    build_lab_images
    base="${SCALELAB_BASE_IMAGE:-$(compose_env_value SCALELAB_BASE_IMAGE)}"
    base="${base:-scalelab/base:bookworm}"
    # The lab's own base cannot be pulled: it must be on the engine. Another (debian:bookworm-slim) Compose pulls.
    [[ "$base" != scalelab/* ]] || docker image inspect "$base" >/dev/null 2>&1 \
      || die "the base image $base is not on the engine (pnpm images --lab bootstraps scalelab/base:bookworm; or set SCALELAB_BASE_IMAGE)"
    ensure_compose_env
    ensure_compose_ca
    log "docker compose up -d --build --wait (the app image's first build takes minutes; log: $STATE/logs/compose-up.log)"
    start=$SECONDS
    compose_cmd up -d --build --wait "$@" >"$STATE/logs/compose-up.log" 2>&1 || {
      tail -40 "$STATE/logs/compose-up.log" >&2
      compose_cmd ps -a >&2 || true
      die "docker compose up failed, see $STATE/logs/compose-up.log (and: bash scripts/compose.sh logs)"
    }
    port="${SCALELAB_WEB_PORT:-$(compose_env_value SCALELAB_WEB_PORT)}"
    log "up in $((SECONDS - start)) s: the dashboard is on http://127.0.0.1:${port:-3000}"
    ;;
  down)
    ensure_docker; ensure_compose
    [ -f "$COMPOSE_ENV_FILE" ] || die "$COMPOSE_ENV_FILE is missing: nothing was brought up from this checkout"
    compose_cmd down "$@"
    ;;
  *)
    ensure_docker; ensure_compose
    compose_cmd "$cmd" "$@"
    ;;
esac
