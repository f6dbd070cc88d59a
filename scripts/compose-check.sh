#!/usr/bin/env bash
# The Compose deployment end to end (scripts/test.sh's compose_check): `scripts/compose.sh up` under
# a project name, ports, instance label and .env of its own (fresh secrets every time), one short
# run through its dashboard with the CLI to success, then `down -v --remove-orphans`. On any
# failure it prints the deployment's logs; whatever happens it takes the deployment down and
# checks that nothing it created is left (containers, networks, volumes).
export COMPOSE_PROJECT_NAME="${SCALELAB_COMPOSE_TEST_PROJECT:-scalelab-compose-test}"
export SCALELAB_WEB_PORT="${SCALELAB_COMPOSE_TEST_WEB_PORT:-3124}"
export SCALELAB_POSTGRES_PORT="${SCALELAB_COMPOSE_TEST_POSTGRES_PORT:-55532}"
export SCALELAB_REDIS_PORT="${SCALELAB_COMPOSE_TEST_REDIS_PORT:-56479}"
export SCALELAB_INSTANCE="$COMPOSE_PROJECT_NAME"
# Its own tags, so a deployment of another checkout keeps its images (the layers are shared all the same).
export SCALELAB_APP_IMAGE="scalelab/app:compose-test"
export SCALELAB_POSTGRES_IMAGE="scalelab/compose-postgres:compose-test"
export SCALELAB_REDIS_IMAGE="scalelab/compose-redis:compose-test"
. "$(dirname "$0")/lib.sh"
export SCALELAB_COMPOSE_ENV_FILE="$STATE/compose-test.env"
COMPOSE_ENV_FILE="$SCALELAB_COMPOSE_ENV_FILE"
URL="http://127.0.0.1:$SCALELAB_WEB_PORT"
cd "$ROOT"
WORK="$(mktemp -d)"
WATCH_PID=""

# Every object of this deployment: the project's (Compose labels them) and its worker's runs'.
ours() {
  local kind="$1" f
  for f in "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" "label=scalelab.instance=$SCALELAB_INSTANCE"; do
    case "$kind" in
      containers) docker ps -aq --filter "$f" ;;
      networks) docker network ls -q --filter "$f" ;;
      volumes) docker volume ls -q --filter "$f" ;;
    esac
  done | sort -u
}

cleanup() {
  local rc=$? left
  [ -z "$WATCH_PID" ] || kill "$WATCH_PID" 2>/dev/null || true
  [ "$rc" = 0 ] || log "compose check FAILED (exit $rc)"
  if [ "$rc" != 0 ] && [ -f "$COMPOSE_ENV_FILE" ]; then
    log "the deployment's logs (last 60 lines a service):"
    compose_cmd ps -a >&2 || true
    compose_cmd logs --no-color --tail 60 >&2 || true
  fi
  if [ -f "$COMPOSE_ENV_FILE" ]; then
    local t=$SECONDS
    compose_cmd down -v --remove-orphans --timeout 45 >"$STATE/logs/compose-check-down.log" 2>&1 \
      || { cat "$STATE/logs/compose-check-down.log" >&2; rc=1; }
    log "down -v --remove-orphans: $((SECONDS - t)) s"
  fi
  left="$(ours containers; ours networks; ours volumes)"
  if [ -n "$left" ]; then
    log "left behind after down (removing them now):"
    docker ps -a --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" >&2
    docker ps -a --filter "label=scalelab.instance=$SCALELAB_INSTANCE" >&2
    ours containers | xargs -r docker rm -f >/dev/null 2>&1 || true
    ours networks | xargs -r docker network rm >/dev/null 2>&1 || true
    ours volumes | xargs -r docker volume rm -f >/dev/null 2>&1 || true
    rc=1
  fi
  # The check's earlier builds, untagged by this one's (Compose labels what it builds with its
  # project; the tagged images stay: they are the cache).
  docker image prune -f --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" >/dev/null || true
  rm -rf "$WORK" "$COMPOSE_ENV_FILE"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ensure_docker; ensure_compose
# `compose-check.sh build`: only the deployment's images, as the check's `up --build` builds them
# (scripts/test.sh builds them beside the unit tests; the check's own build is then the layer cache's).
if [ "${1:-}" = build ]; then
  ensure_compose_env
  ensure_compose_ca
  t=$SECONDS
  compose_cmd build >"$STATE/logs/compose-build.log" 2>&1 || { tail -40 "$STATE/logs/compose-build.log" >&2; die "docker compose build failed, see $STATE/logs/compose-build.log"; }
  log "the deployment's images built: $((SECONDS - t)) s"
  exit 0
fi
# A deployment left by an earlier, killed check goes first (with its volumes: the secrets are new).
if [ -n "$(ours containers; ours volumes)" ]; then
  log "removing what an earlier compose check left"
  [ -f "$COMPOSE_ENV_FILE" ] || ensure_compose_env
  compose_cmd down -v --remove-orphans --timeout 45 >/dev/null 2>&1 || true
fi
rm -f "$COMPOSE_ENV_FILE"

start=$SECONDS
bash "$ROOT/scripts/compose.sh" up
log "compose up (project $COMPOSE_PROJECT_NAME, $URL): $((SECONDS - start)) s"
# The dashboard's page and one of its scripts, as a browser fetches them.
curl -fsS -o "$WORK/index.html" "$URL/" || die "GET $URL/ failed"
chunk="$(grep -o '/_next/static/[A-Za-z0-9/_.-]*\.js' "$WORK/index.html" | head -1)"
[ -n "$chunk" ] || die "the dashboard's page at $URL/ names no script"
curl -fsS -o /dev/null "$URL$chunk" || die "GET $URL$chunk failed"

# The run's containers, as the worker creates them: each must carry the run's and the instance's labels.
(
  while :; do
    docker ps --filter "label=scalelab.instance=$SCALELAB_INSTANCE" --filter label=scalelab.managed=true \
      --format '{{.ID}} {{.Label "scalelab.run"}}' >>"$WORK/seen" 2>/dev/null
    sleep 0.5
  done
) &
WATCH_PID=$!

cat >"$WORK/run.json" <<'JSON'
{
  "name": "compose-check",
  "topology": { "service": { "replicas": 1, "cpus": 0.2 } },
  "workload": { "endpoint": "hostname", "arrivalRate": 50, "durationSeconds": 5 }
}
JSON
t=$SECONDS
rc=0
# No token of the developer's (SCALELAB_TOKEN, a config file) reaches the check's lab: an empty config directory.
mkdir "$WORK/config"
env -u SCALELAB_TOKEN XDG_CONFIG_HOME="$WORK/config" SCALELAB_URL="$URL" \
  pnpm --silent scalelab run "$WORK/run.json" --wait --json >"$WORK/run.out" 2>"$WORK/run.err" || rc=$?
kill "$WATCH_PID" 2>/dev/null || true; wait "$WATCH_PID" 2>/dev/null || true; WATCH_PID=""
if [ "$rc" != 0 ]; then
  cat "$WORK/run.err" "$WORK/run.out" >&2
  die "the run through the Compose deployment did not pass (CLI exit $rc)"
fi
node -e '
  const run = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const seen = require("fs").existsSync(process.argv[2]) ? require("fs").readFileSync(process.argv[2], "utf8").trim().split("\n").filter(Boolean) : [];
  if (run.status !== "succeeded") { console.error(`run ${run.id}: status ${run.status}`); process.exit(1); }
  const rps = run.summary?.rps ?? run.summary?.throughput?.rps;
  const labelled = seen.filter((l) => l.split(" ")[1] === run.id);
  if (labelled.length === 0) { console.error(`no container labelled scalelab.run=${run.id} was seen on the engine during the run`); process.exit(1); }
  const other = seen.filter((l) => l.split(" ")[1] !== run.id);
  if (other.length) { console.error(`containers of this instance without the run label: ${other.join(", ")}`); process.exit(1); }
  console.error(`[scalelab] run ${run.id} succeeded through Compose (${new Set(labelled.map((l) => l.split(" ")[0])).size} labelled containers seen${rps === undefined ? "" : `, ${rps} req/s`})`);
' "$WORK/run.out" "$WORK/seen"
log "the run through Compose: $((SECONDS - t)) s"
[ -z "$(docker ps -aq --filter "label=scalelab.instance=$SCALELAB_INSTANCE")" ] \
  || die "the run's containers are still there after it ended: $(docker ps -a --filter "label=scalelab.instance=$SCALELAB_INSTANCE")"
