#!/usr/bin/env bash
# A test Docker Swarm cluster on this machine: N Docker-in-Docker nodes and a registry, as
# containers of the host engine, registered with the lab as the engine `swarm-local`.
#
#   bash scripts/swarm.sh up [--nodes N]   (default 3; an existing healthy cluster of N nodes is reused)
#   bash scripts/swarm.sh down             (containers, volumes and network; the images stay cached)
#   bash scripts/swarm.sh status
#
# The nodes run without --privileged (this host's dockerd cannot grant it) with the flags of
# DESIGN.md's "Facts checked … Swarm". Every object carries scalelab.cluster=swarm-local and none
# of the labels of a run or of the lab (scalelab.managed, scalelab.instance).
. "$(dirname "$0")/lib.sh"

CLUSTER=swarm-local
LABEL="scalelab.cluster=$CLUSTER"
PREFIX=scalelab-swarm
NET="$PREFIX"
REGISTRY="$PREFIX-registry"
REGISTRY_PORT="${SCALELAB_SWARM_REGISTRY_PORT:-55050}"
ENGINE_JSON="$STATE/engines/$CLUSTER.json"
MAX_NODES=5

usage() { sed -n '5,7p' "$0" | sed 's/^#   //' >&2; exit 2; }

node_name() { echo "$PREFIX-node$1"; }
ip_of() { docker inspect -f "{{with index .NetworkSettings.Networks \"$NET\"}}{{.IPAddress}}{{end}}" "$1"; }
on_node() { local n="$1"; shift; docker exec "$(node_name "$n")" docker "$@"; }
# Every container of the cluster, running or not.
cluster_containers() { docker ps -aq --filter "label=$LABEL"; }

wait_engine() {
  local n="$1" i
  for i in $(seq 1 120); do
    on_node "$n" info >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  docker logs --tail 30 "$(node_name "$n")" >&2 || true
  die "the engine of $(node_name "$n") did not answer within 30 s (its log above)"
}

# healthy N: N running nodes, node 1 a manager of a swarm of exactly N ready nodes, the registry up.
healthy() {
  local want="$1" n ready
  [ "$(docker ps -q --filter "label=$LABEL" --filter "label=scalelab.swarm-role=node" | wc -l)" = "$want" ] || return 1
  for n in $(seq 1 "$want"); do
    [ "$(docker inspect -f '{{.State.Running}}' "$(node_name "$n")" 2>/dev/null)" = true ] || return 1
  done
  [ "$(docker inspect -f '{{.State.Running}}' "$REGISTRY" 2>/dev/null)" = true ] || return 1
  ready="$(on_node 1 node ls --format '{{.Status}}' 2>/dev/null | grep -c '^Ready$')" || return 1
  [ "$ready" = "$want" ]
}

build_images() {
  local out
  out="$(cd "$ROOT" && pnpm --silent images --swarm 2>&1)" || { echo "$out" >&2; die "building the Swarm images failed"; }
  NODE_IMAGE="$(awk '$1 == "swarm-node" && $2 ~ /^scalelab\// { print $2 }' <<<"$out" | tail -1)"
  REGISTRY_IMAGE="$(awk '$1 == "registry" && $2 ~ /^scalelab\// { print $2 }' <<<"$out" | tail -1)"
  [ -n "$NODE_IMAGE" ] && [ -n "$REGISTRY_IMAGE" ] || { echo "$out" >&2; die "could not read the images' tags"; }
}

down() {
  local ids vols
  ids="$(cluster_containers)"
  [ -z "$ids" ] || docker rm -f -v $ids >/dev/null
  vols="$(docker volume ls -q --filter "label=$LABEL")"
  [ -z "$vols" ] || docker volume rm $vols >/dev/null
  docker network ls -q --filter "label=$LABEL" | while read -r id; do docker network rm "$id" >/dev/null; done
  rm -f "$ENGINE_JSON"
  # A cluster that is gone is no engine a run can name.
  if (cd "$ROOT" && pnpm --silent --filter @scalelab/lab lab engine remove "$CLUSTER") >"$STATE/logs/swarm-register.log" 2>&1; then
    log "swarm: engine $CLUSTER removed from the lab"
  else
    log "swarm: could not remove engine $CLUSTER from the lab (is its control plane up?): $(grep -m1 -i 'error' "$STATE/logs/swarm-register.log")"
  fi
  log "swarm: down (containers, volumes, network removed; images kept)"
}

create() {
  local nodes="$1" n name reg_ip token ip
  build_images
  docker network create --label "$LABEL" "$NET" >/dev/null
  docker volume create --label "$LABEL" "$REGISTRY-data" >/dev/null
  docker run -d --name "$REGISTRY" --label "$LABEL" --label scalelab.swarm-role=registry \
    --network "$NET" -p "127.0.0.1:$REGISTRY_PORT:5000" -v "$REGISTRY-data:/var/lib/docker-registry" \
    --restart unless-stopped "$REGISTRY_IMAGE" >/dev/null
  reg_ip="$(ip_of "$REGISTRY")"
  for n in $(seq 1 "$nodes"); do
    name="$(node_name "$n")"
    docker volume create --label "$LABEL" "$name-docker" >/dev/null
    docker run -d --name "$name" --hostname "node$n" --label "$LABEL" --label scalelab.swarm-role=node \
      --network "$NET" -v "$name-docker:/var/lib/docker" -e "SWARM_REGISTRY=$reg_ip:5000" \
      --cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
      --security-opt systempaths=unconfined --device-cgroup-rule 'a *:* rwm' \
      "$NODE_IMAGE" >/dev/null
  done
  for n in $(seq 1 "$nodes"); do wait_engine "$n"; done
  on_node 1 swarm init --advertise-addr eth0 --default-addr-pool 10.200.0.0/16 >/dev/null
  token="$(on_node 1 swarm join-token -q worker)"
  ip="$(ip_of "$(node_name 1)")"
  for n in $(seq 2 "$nodes"); do on_node "$n" swarm join --token "$token" "$ip:2377" >/dev/null; done
  for _ in $(seq 1 120); do healthy "$nodes" && return 0; sleep 0.25; done
  on_node 1 node ls >&2 || true
  die "the swarm did not report $nodes ready nodes within 30 s"
}

# register N: the engine config as JSON (read by the worker's Swarm tests) and, through the lab
# tool, in the lab's database.
register() {
  local nodes="$1" n ip args=() json_nodes=""
  ip="$(ip_of "$(node_name 1)")"
  args=(--manager "tcp://$ip:2375")
  for n in $(seq 1 "$nodes"); do
    ip="$(ip_of "$(node_name "$n")")"
    args+=(--node "node$n=tcp://$ip:2375")
    json_nodes+="${json_nodes:+, }{ \"name\": \"node$n\", \"endpoint\": \"tcp://$ip:2375\" }"
  done
  local reg_pull
  reg_pull="$(ip_of "$REGISTRY"):5000"
  args+=(--registry-push "127.0.0.1:$REGISTRY_PORT" --registry-pull "$reg_pull")
  mkdir -p "$(dirname "$ENGINE_JSON")"
  cat >"$ENGINE_JSON" <<EOF
{
  "name": "$CLUSTER",
  "kind": "swarm",
  "manager": "tcp://$(ip_of "$(node_name 1)"):2375",
  "nodes": [$json_nodes],
  "tlsDir": null,
  "registry": { "push": "127.0.0.1:$REGISTRY_PORT", "pull": "$reg_pull" }
}
EOF
  if (cd "$ROOT" && pnpm --silent --filter @scalelab/lab lab engine add "$CLUSTER" "${args[@]}") >"$STATE/logs/swarm-register.log" 2>&1; then
    log "swarm: registered with the lab as engine $CLUSTER"
  else
    log "swarm: 'lab engine add' failed (is the lab's control plane up, and the engines command there?): $(grep -m1 -i 'error' "$STATE/logs/swarm-register.log")"
    log "swarm: the config is in $ENGINE_JSON; register it later with: pnpm --silent --filter @scalelab/lab lab engine add $CLUSTER ${args[*]}"
    return 1
  fi
}

up() {
  local nodes=3
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) nodes="${2:-}"; shift 2 ;;
      --nodes=*) nodes="${1#--nodes=}"; shift ;;
      *) usage ;;
    esac
  done
  [[ "$nodes" =~ ^[1-9]$ ]] && [ "$nodes" -le "$MAX_NODES" ] || die "--nodes must be a whole number from 1 to $MAX_NODES, got '$nodes'"
  # What up.sh would install, where it is missing: Node.js, pnpm, the Docker engine, the workspace.
  ensure_node; ensure_pnpm; ensure_docker
  [ -d "$ROOT/node_modules" ] || ensure_workspace
  if healthy "$nodes"; then
    log "swarm: reusing the running cluster of $nodes nodes"
  else
    [ -z "$(cluster_containers)" ] || { log "swarm: an incomplete or different cluster is there; replacing it"; down; }
    log "swarm: starting $nodes nodes and a registry"
    create "$nodes"
  fi
  register "$nodes"
  status
}

status() {
  if [ -z "$(cluster_containers)" ]; then
    echo "swarm: no cluster (bash scripts/swarm.sh up)"
    return 0
  fi
  docker ps -a --filter "label=$LABEL" --format 'table {{.Names}}\t{{.Status}}\t{{.Ports}}'
  on_node 1 node ls 2>/dev/null || echo "swarm: node 1's engine does not answer"
  [ -f "$ENGINE_JSON" ] && echo "engine config: $ENGINE_JSON"
  return 0
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down ;;
  status) status ;;
  *) usage ;;
esac
