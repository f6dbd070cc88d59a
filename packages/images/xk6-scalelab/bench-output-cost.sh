#!/usr/bin/env bash
# The scalelab output's cost (docs/BENCHMARKS.md): k6's CPU seconds for the same fixed-rate load
# with and without `--out scalelab`, alternated, RUNS times each, against one testbed (/hostname).
# Usage: bench-output-cost.sh TESTBED_IMAGE K6_IMAGE [RATE] [SECONDS] [RUNS]
set -euo pipefail
testbed=$1 k6=$2 rate=${3:-1000} seconds=${4:-8} runs=${5:-3}
label=scalelab.instance=hist-bench
net=hist-bench
work=$(mktemp -d) && chmod 755 "$work"
cleanup() {
  docker rm -f $(docker ps -aq --filter "label=$label") >/dev/null 2>&1 || true
  docker network rm "$net" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
docker network create --label "$label" "$net" >/dev/null
docker run -d --label "$label" --network "$net" --network-alias app --cpus 1 "$testbed" >/dev/null
cat >"$work/script.js" <<JS
import http from "k6/http";
export const options = {
  scenarios: { load: { executor: "constant-arrival-rate", rate: $rate, timeUnit: "1s", duration: "${seconds}s", preAllocatedVUs: 50, maxVUs: 200 } },
};
export default function () {
  http.get("http://app:8080/hostname");
}
JS
chmod 644 "$work/script.js"
sleep 2
for i in $(seq "$runs"); do
  for out in "" "--out scalelab=http_req_duration"; do
    # cgroup v1 (this host's Docker); cpu.stat's usage_usec under cgroup v2
    ns=$(docker run --rm --label "$label" --network "$net" --cpus 1 -v "$work:/s:ro" --entrypoint sh "$k6" -c \
      "k6 run --no-color --quiet $out /s/script.js >/dev/null 2>&1; cat /sys/fs/cgroup/cpuacct/cpuacct.usage")
    echo "run $i ${out:-(no output)}: $(awk -v ns="$ns" 'BEGIN { printf "%.2f", ns / 1e9 }') CPU s"
  done
done
