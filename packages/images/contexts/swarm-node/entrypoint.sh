#!/bin/sh
# Makes the container a place dockerd can run in without --privileged: /sys and the cgroup v1
# hierarchies are mounted read-only in a container, dockerd needs them writable; securityfs for
# AppArmor's checks; a tmpfs /tmp. Then dockerd with the node's daemon.json.
set -eu
# A bind remount changes only this mount's flags: remounting a cgroup hierarchy's superblock
# read-write fails with "mount point is busy".
ro() { grep -q " $1 [^ ]* ro[, ]" /proc/mounts; }
if ro /sys; then mount -o remount,rw /sys; fi
for d in /sys/fs/cgroup /sys/fs/cgroup/*; do
  if [ -d "$d" ] && [ ! -L "$d" ] && mountpoint -q "$d" && ro "$d"; then mount -o remount,bind,rw "$d"; fi
done
mountpoint -q /sys/kernel/security || mount -t securityfs none /sys/kernel/security 2>/dev/null || true
mountpoint -q /tmp || mount -t tmpfs none /tmp
# The registry's address (host:port) the node pulls from over plain HTTP, given by scripts/swarm.sh.
if [ -n "${SWARM_REGISTRY:-}" ]; then
  sed -i "s|\"insecure-registries\": \[\]|\"insecure-registries\": [\"${SWARM_REGISTRY}\"]|" /etc/docker/daemon.json
fi
# The engine's TCP API answers only the lab's host (the cluster network's gateway), never a run's
# containers: those on this node come in through docker_gwbridge or docker0, those on another node
# from that node's address. A user's image must not drive any engine of the cluster.
lab_host=$(ip route show default | awk '{ print $3; exit }')
iptables -I INPUT -p tcp --dport 2375 ! -s "${lab_host:?no default route to the lab host}" -j DROP
# Nor push to the registry the nodes pull from: the engine's own pulls leave from this host (OUTPUT),
# a task's connections are forwarded (DOCKER-USER, which dockerd creates when it starts).
if [ -n "${SWARM_REGISTRY:-}" ]; then
  registry_ip=${SWARM_REGISTRY%:*}
  (
    for _ in $(seq 1 600); do
      if iptables -L DOCKER-USER >/dev/null 2>&1; then
        iptables -I DOCKER-USER -d "$registry_ip" -j DROP
        exit 0
      fi
      sleep 0.1
    done
    echo "entrypoint: DOCKER-USER never appeared; the registry is not closed to tasks" >&2
  ) &
fi
exec dockerd --tls=false
