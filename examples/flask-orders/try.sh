#!/usr/bin/env bash
# Your own service in the lab, end to end through the REST API: uploads this folder as a build
# context (the lab builds it), runs it at 1 and at 3 replicas of 0.25 CPU beside Postgres with
# init.sql under the same request, then under script.js, and prints what came out.
#   bash examples/flask-orders/try.sh [http://localhost:3000]
# Needs the dashboard (bash scripts/up.sh), curl and jq.
set -euo pipefail
LAB="${1:-http://localhost:3000}"
DIR="$(cd "$(dirname "$0")" && pwd)"
TAG="${TAG:-flask-orders:1}"
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 3; }

echo "── building $TAG from $DIR (POST /api/v1/images)"
tar -C "$DIR" -czf - Dockerfile app.py |
  curl -sS --fail-with-body --data-binary @- -H 'Content-Type: application/gzip' "$LAB/api/v1/images?tag=$TAG" | jq -c .

# run BODY: queues a run, waits for its end, prints its id; a failed run stops the script.
run() {
  local id status
  id="$(curl -sS --fail-with-body -XPOST "$LAB/api/v1/runs" -H 'content-type: application/json' -d "$1" | jq -r .id)"
  while :; do
    status="$(curl -sS "$LAB/api/v1/runs/$id" | jq -r .status)"
    case "$status" in queued | running) sleep 3 ;; *) break ;; esac
  done
  [ "$status" = succeeded ] || { curl -sS "$LAB/api/v1/runs/$id" | jq '{status, error}' >&2; exit 2; }
  echo "$id"
}

# body REPLICAS WORKLOAD: the service at REPLICAS × 0.25 CPU behind nginx, Postgres with init.sql beside it.
body() {
  jq -n --arg image "$TAG" --argjson replicas "$1" --rawfile init "$DIR/init.sql" --argjson workload "$2" '{
    name: "flask-orders \($replicas) × 0.25 CPU",
    topology: {service: {kind: "image", image: $image, replicas: $replicas, cpus: 0.25, memoryMb: 256, healthPath: "/health"},
               storage: {kind: "postgres", init: $init}},
    workload: ({vus: 32, durationSeconds: 20} + $workload)}'
}

report() { curl -sS "$LAB/api/v1/runs/$1" | jq -c '.summary | {rps, errors, p95: .latencyMs.p95, backends, checks: .script.checks}'; }

REQUEST='{"request": {"method": "POST", "path": "/orders", "headers": {"Content-Type": "application/json"}, "body": "{\"item\": \"book\", \"qty\": 1}"}}'
echo "── POST /orders at 1 and at 3 replicas"
one="$(run "$(body 1 "$REQUEST")")"; report "$one"
three="$(run "$(body 3 "$REQUEST")")"; report "$three"
jq -n --argjson a "$(curl -sS "$LAB/api/v1/runs/$one" | jq .summary.rps)" --argjson b "$(curl -sS "$LAB/api/v1/runs/$three" | jq .summary.rps)" \
  '"3 replicas / 1 replica: \($b / $a * 100 | round / 100)×"'

echo "── the k6 script (writes and reads back, with checks) at 3 replicas"
script="$(run "$(body 3 "$(jq -n --rawfile s "$DIR/script.js" '{script: $s}')")")"; report "$script"
echo "runs: $LAB/runs/$one $LAB/runs/$three $LAB/runs/$script · compare: $LAB/compare?ids=$one,$three"
