#!/usr/bin/env bash
# Runs every test suite: unit (TS + Go), integration against the real Docker engine, Postgres
# and Redis, Playwright in Debian's Chromium, and a contract fuzz of the REST API (schemathesis).
# Starts whatever it needs, every time.
. "$(dirname "$0")/lib.sh"

E2E_PORT="${E2E_PORT:-3100}"
RESULTS="$STATE/test-results"
rm -rf "$RESULTS"; mkdir -p "$RESULTS"
FAILED=()

# step NAME CMD...: run a suite, keep going on failure so one run reports every suite.
step() {
  local name="$1"; shift
  log "── $name"
  local start=$SECONDS
  local rc=0; "$@" || rc=$?
  # "at": the suite's clock (m:ss) when the step ended, so the lanes' steps can be laid side by side.
  local took="$((SECONDS - start)) s, at $((SECONDS / 60)):$(printf %02d $((SECONDS % 60)))"
  if [ "$rc" = 0 ]; then log "── $name: ok ($took)"; else log "── $name: FAILED ($took)"; FAILED+=("$name"); fi
}

vitest_json() { echo "--reporter=default" "--reporter=json" "--outputFile=$RESULTS/$1.vitest.json"; }
# integration_args REPORT: an integration file's test that failed runs once more, as Playwright's do
# (retries: 1): real containers, load and clocks on a 2-core host the lanes keep busy. A test that
# fails twice fails; one that passed on its retry is named, with its first error, by the tally at
# the end (scripts/tally.mjs). Pure logic (the unit suites) is never retried.
integration_args() { vitest_json "$1"; echo "--retry=1"; }

ensure_node; ensure_pnpm; ensure_go; ensure_tools; ensure_redis_server; ensure_docker; ensure_chromium; ensure_workspace

# Lanes: steps that run side by side, each prefixing its output with its name as it comes.
LANES=()
# lane NAME CMD...: run CMD (steps) in the background; its failed steps are collected by join_lanes.
lane() {
  local name="$1"; shift
  ( FAILED=(); "$@"; printf '%s\n' "${FAILED[@]}" >"$RESULTS/lane-$name.failed" ) 2>&1 | sed -u "s/^/[$name] /" >&2 &
  LANES+=("$name:$!")
}
join_lanes() {
  local l name f
  for l in "${LANES[@]}"; do
    name="${l%%:*}"; wait "${l#*:}" || true
    if [ ! -f "$RESULTS/lane-$name.failed" ]; then FAILED+=("lane $name (ended before reporting)"); continue; fi
    while IFS= read -r f; do [ -n "$f" ] && FAILED+=("$f"); done <"$RESULTS/lane-$name.failed"
    rm -f "$RESULTS/lane-$name.failed"
  done
  LANES=()
}

# The prepare lane, beside the static checks and the unit tests (no Docker, nothing measured in
# either): every image the later steps use but the lab's own three (on a fresh machine they are
# built here, not in a timed step or a lane), the Compose deployment's, and schemathesis.
prepare_lane() {
  step "images: control plane, dependencies, Swarm nodes (built once, by content hash)" pnpm --silent images --control-plane --dependencies --swarm
  step "images: the Compose deployment's" bash "$ROOT/scripts/compose-check.sh" build
  step "contract: schemathesis installed" ensure_schemathesis
}
lane prepare prepare_lane

step "typecheck" pnpm --silent turbo run typecheck --output-logs=errors-only
step "lint (layering, env access, format)" pnpm --silent run lint
step "unit: scenarios" pnpm --filter @scalelab/scenarios test $(vitest_json unit-scenarios)
step "unit: images" pnpm --filter @scalelab/images test $(vitest_json unit-images)
step "unit: lab" pnpm --filter @scalelab/lab test $(vitest_json unit-lab)
step "unit: cli" pnpm --filter @scalelab/cli test $(vitest_json unit-cli)
step "unit: worker" pnpm --filter @scalelab/worker test $(vitest_json unit-worker)
step "unit: web" pnpm --filter @scalelab/web test $(vitest_json unit-web)
# The e2e web's build (Next, CPU only): beside the prepare lane and the steps below, as they come.
build_web "$E2E_WEB_DIST" "$STATE/logs/e2e-web-build.log" &
E2E_BUILD_PID=$!
# Go builds as the lab's image builds do (no cgo, -trimpath), so the packages its tests compiled are
# the testbed and k6 images' too: k6's build after its tests took 1 s instead of about 70 s from a
# cold cache (2026-11-26).
go_test() { (cd "$1" && shift && CGO_ENABLED=0 GOFLAGS=-trimpath "$@"); }
step "unit: testbed (go)" go_test "$ROOT/apps/testbed" bash -c "go vet ./... && go test -json ./... > '$RESULTS/testbed.go.jsonl' || { grep -h '\"Action\":\"fail\"' '$RESULTS/testbed.go.jsonl' >&2; exit 1; }"
step "unit: k6 output (go)" go_test "$ROOT/packages/images/xk6-scalelab" bash -c "go vet ./... && go test ./..."
step "images: the lab's (testbed, nginx, k6)" pnpm --silent images --lab
join_lanes

# The test database and Redis index are separate from the dashboard's and wiped every time.
TEST_DB=scalelab_test
TEST_REDIS_DB=1
unset DATABASE_URL REDIS_URL
control_plane "$TEST_DB" "$TEST_REDIS_DB" --fresh
# The test workers label and sweep only their own objects, so a dashboard's lab on the same
# Docker engine is left alone (and does not count as a leftover below).
export SCALELAB_INSTANCE=scalelab-test

step "integration: images" pnpm --filter @scalelab/images test:integration $(integration_args integration-images)
# Control planes of its own (other names, ports the engine picks): roles, passwords, the upgrade.
step "integration: lab control plane" pnpm --filter @scalelab/lab test:integration $(integration_args integration-lab)
E2E_BUILD_RC=0; wait "$E2E_BUILD_PID" || E2E_BUILD_RC=$?

# worker_files LANE REPORT: the worker's integration files of one lane (apps/worker/src/testing/lanes.ts
# says which and why), one file at a time.
worker_files() {
  local files; files="$(cd "$ROOT/apps/worker" && pnpm --silent exec tsx src/testing/lanes.ts $1)" || return 1
  # shellcheck disable=SC2086 # one argument per file
  pnpm --filter @scalelab/worker exec vitest run $files $(integration_args "$2")
}

# The files that compare throughput, latency or CPU use with a bound run first, alone on the host.
step "integration: worker pipeline, on a quiet host" worker_files quiet integration-worker-quiet

E2E_URL="http://127.0.0.1:$E2E_PORT"

# web_worker_up NAME PORT: a worker (NAME-worker) and the e2e build of the web (NAME-web, on
# 127.0.0.1:PORT) on the current database, Redis index and instance, each started afresh; answers
# once both are up. The web is built into apps/web/.next-e2e, so a dashboard started by
# scripts/up.sh from this checkout keeps serving its own build (.next) meanwhile.
web_worker_up() {
  [ "$E2E_BUILD_RC" = 0 ] || { log "building the e2e web failed, see $STATE/logs/e2e-web-build.log"; return 1; }
  stop_pidfile "$STATE/$1-worker.pid"; stop_pidfile "$STATE/$1-web.pid"
  start_worker "$1-worker" || return 1
  start_web "$1-web" "$2" "$E2E_WEB_DIST" || return 1
  wait_worker "$1-worker" 60 || return 1
  wait_http "http://127.0.0.1:$2/api/v1/runs" 90 || { tail -30 "$STATE/logs/$1-web.log" >&2; return 1; }
}

# The e2e web and worker, shared by Playwright and the contract fuzz.
e2e_up() { web_worker_up e2e "$E2E_PORT"; }

playwright() {
  e2e_up || return 1
  SCALELAB_WEB_URL="$E2E_URL" PLAYWRIGHT_JSON_OUTPUT_NAME="$RESULTS/e2e.playwright.json" \
    pnpm --filter @scalelab/web test:e2e --reporter=list,json || { tail -40 "$STATE/logs/e2e-worker.log" >&2; return 1; }
}

# The contract fuzz: schemathesis with every check on, against the e2e web and the OpenAPI
# document it serves (settings and every tuned check, with the reason, in
# apps/web/e2e/schemathesis.toml). The e2e worker is stopped first: the runs and experiments the
# fuzz creates (hundreds, some an hour long) stay queued with no worker to start them, and are
# wiped afterwards with the test database and Redis index (which the next start wipes anyway),
# so no worker ever takes them. Its JUnit report counts in the tally (one test per operation,
# and one for the stateful phase).
contract() {
  local rc=0
  stop_pidfile "$STATE/e2e-worker.pid"
  if ! ensure_schemathesis; then
    rc=1
  elif ! wait_http "$E2E_URL/api/v1/openapi.json" 5; then
    log "the e2e web is not up"; rc=1
  else
    mkdir -p "$STATE/contract"
    (cd "$STATE/contract" && "$SCHEMATHESIS_VENV/bin/st" --config-file "$ROOT/apps/web/e2e/schemathesis.toml" \
      run "$E2E_URL/api/v1/openapi.json" --checks all --no-color \
      --report junit --report-junit-path "$RESULTS/contract.junit.xml") >"$STATE/logs/contract.log" 2>&1 || rc=1
    # The summary (operations, phases, test cases, time); on failure every failure with its curl.
    # Its closing rule ("=== 2 warnings in 60 s ===") is left out: it has pytest's form, and a CI
    # that reads pytest's closing line takes it for a run of no test (the tally below is the count).
    local section=' SUMMARY '; [ "$rc" = 0 ] || section=' FAILURES '
    sed -n "/$section/,\$p" "$STATE/logs/contract.log" | grep -v -E '^=+ .* in [0-9.]+s =+$' >&2 || true
  fi
  stop_pidfile "$STATE/e2e-web.pid"
  log "wiping the test database and Redis index (the fuzz's queued runs)"
  (cd "$ROOT/tooling/lab" && pnpm --silent lab control-plane up --database "$TEST_DB" --redis-db "$TEST_REDIS_DB" --fresh) >/dev/null || rc=1
  return "$rc"
}

# The integration lanes: what only checks behaviour runs side by side, each lane with its own
# database, Redis index and instance label: the web's suites (Playwright, the contract fuzz, the
# web's services) on the test database, and the rest of the worker's integration files in
# SHARED_LANES lanes of about equal length, each with what shared_lane adds. Nothing in them
# compares a figure with a bound the others' load could cross (those files ran above, alone).
SHARED_LANES=2
web_lane() {
  step "e2e: playwright" playwright
  step "contract: schemathesis" contract
  # The web's services (no server, no worker), on the test database the fuzz's end has wiped.
  step "integration: web services" pnpm --filter @scalelab/web test:integration $(integration_args integration-web)
}

# cli_check: the CLI as a user types it, against a web and a worker of its own (the e2e build, on
# port E2E_PORT + 1, the lane's database, Redis index and instance), so it runs beside Playwright
# instead of after it in the web lane (and no run of the one queues behind a run of the other).
cli_check() {
  local port=$((E2E_PORT + 1)) rc=0
  if web_worker_up cli "$port"; then
    SCALELAB_WEB_URL="http://127.0.0.1:$port" pnpm --filter @scalelab/cli test:integration $(integration_args integration-cli) \
      || { tail -40 "$STATE/logs/cli-worker.log" >&2; rc=1; }
  else
    rc=1
  fi
  stop_pidfile "$STATE/cli-worker.pid"; stop_pidfile "$STATE/cli-web.pid"
  return "$rc"
}

# shared_lane K: the K-th shared lane of the worker's integration files, on its own database
# (prepared below, before the lanes start), Redis index and instance. Then, beside the web lane:
# lane 1 the Swarm files, on the test cluster started before the lanes; lane 2 the Compose
# deployment (its own project, ports 3124/55532/56479, .env and instance label; it takes itself
# down) and the CLI (cli_check). apps/worker/src/testing/lanes.ts LANE_HEAD_START gives each lane
# these seconds before it splits the files.
shared_lane() {
  set -a; . "$STATE/env.${TEST_DB}_$1"; set +a
  export SCALELAB_INSTANCE="$SCALELAB_INSTANCE-$1"
  step "integration: worker pipeline, shared lane $1/$SHARED_LANES" worker_files "shared $1/$SHARED_LANES" "integration-worker-$1"
  [ "$1" != 1 ] || step "integration: swarm (runs across the test cluster's nodes)" swarm_files
  [ "$1" != 2 ] || step "compose: up, one run to success, down" compose_check
  [ "$1" != 2 ] || step "integration: cli" cli_check
}

# The test Swarm cluster (scripts/swarm.sh: 3 Docker-in-Docker nodes and a registry) is up for the
# whole of the lanes: the worker's Swarm files run in shared lane 1 (swarm_files), the web's
# listing of its nodes there too, and the e2e form spec of engines in the web lane.
SWARM_LABEL=scalelab.cluster=swarm-local
swarm_up() {
  bash "$ROOT/scripts/swarm.sh" up --nodes 3 >"$STATE/logs/swarm-up.log" 2>&1 || { tail -30 "$STATE/logs/swarm-up.log" >&2; return 1; }
}
# swarm_files: the worker's Swarm files (apps/worker/src/testing/lanes.ts SWARM and the provisioner's),
# the web's cluster file and the lab's (lab engine add checked against the cluster).
swarm_files() {
  local rc=0 files
  files="$(cd "$ROOT/apps/worker" && pnpm --silent exec tsx src/testing/lanes.ts swarm)" || return 1
  # shellcheck disable=SC2086 # one argument per file
  pnpm --filter @scalelab/worker exec vitest run $files $(integration_args integration-swarm) || rc=1
  pnpm --filter @scalelab/web exec vitest run cluster $(integration_args integration-swarm-web) || rc=1
  pnpm --filter @scalelab/lab exec vitest run cluster $(integration_args integration-swarm-lab) || rc=1
  return "$rc"
}
# swarm_down: down must leave nothing of the cluster (containers, volumes, network), whatever the tests did.
swarm_down() {
  local left
  bash "$ROOT/scripts/swarm.sh" down >"$STATE/logs/swarm-down.log" 2>&1 || { tail -30 "$STATE/logs/swarm-down.log" >&2; return 1; }
  left="$(docker ps -aq --filter "label=$SWARM_LABEL"; docker volume ls -q --filter "label=$SWARM_LABEL"; docker network ls -q --filter "label=$SWARM_LABEL")"
  [ -z "$left" ] || { echo "swarm.sh down left objects of the test cluster: $left" >&2; return 1; }
}

# compose_check: scripts/compose-check.sh (the app image is cached by content: only a changed
# source rebuilds its web, about 2 min on this machine).
compose_check() { bash "$ROOT/scripts/compose-check.sh"; }

# The Compose check's worker labels its runs with its project's name (scripts/compose-check.sh).
INSTANCES=("$SCALELAB_INSTANCE" scalelab-compose-test)
for k in $(seq 1 "$SHARED_LANES"); do
  (unset DATABASE_URL REDIS_URL; control_plane "${TEST_DB}_$k" $((TEST_REDIS_DB + 10 + k)) --fresh) || FAILED+=("control plane for shared lane $k")
  INSTANCES+=("$SCALELAB_INSTANCE-$k")
done
step "swarm: the test cluster up (3 nodes, a registry)" swarm_up
lane web web_lane
for k in $(seq 1 "$SHARED_LANES"); do lane "worker-$k" shared_lane "$k"; done
join_lanes
step "swarm: the test cluster down, nothing of it left" swarm_down

leftovers() {
  local i f left rc=0
  for i in "${INSTANCES[@]}"; do
    f=(--filter label=scalelab.managed=true --filter "label=scalelab.instance=$i")
    left="$(docker ps -aq "${f[@]}"; docker network ls -q "${f[@]}")"
    [ -z "$left" ] || { docker ps -a "${f[@]}" >&2; docker network ls "${f[@]}" >&2; rc=1; }
  done
  return "$rc"
}
step "no managed container or network left" leftovers

node "$ROOT/scripts/tally.mjs" "$RESULTS" "${#FAILED[@]}"
if [ "${#FAILED[@]}" -gt 0 ]; then
  log "failed suites: ${FAILED[*]}"
  exit 1
fi
