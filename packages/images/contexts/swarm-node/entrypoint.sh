#!/bin/sh
# Makes the container a place dockerd can run in without --privileged: /sys and the cgroup v1
# hierarchies are mounted read-only in a container, dockerd needs them writable; securityfs for
# AppArmor's checks; a tmpfs /tmp. Then dockerd with the node's daemon.json.
set -eu
if ! touch /sys/.rw-probe 2>/dev/null; then mount -o remount,rw /sys 2>/dev/null || true; fi
rm -f /sys/.rw-probe 2>/dev/null || true
if [ -d /sys/fs/cgroup ]; then
  mount -o remount,rw /sys/fs/cgroup 2>/dev/null || true
  for d in /sys/fs/cgroup/*; do
    [ -d "$d" ] && mountpoint -q "$d" && mount -o remount,rw "$d" 2>/dev/null || true
  done
fi
mountpoint -q /sys/kernel/security || mount -t securityfs none /sys/kernel/security 2>/dev/null || true
mountpoint -q /tmp || mount -t tmpfs none /tmp
# The registry's address (host:port) the node pulls from over plain HTTP, given by scripts/swarm.sh.
if [ -n "${SWARM_REGISTRY:-}" ]; then
  sed -i "s|\"insecure-registries\": \[\]|\"insecure-registries\": [\"${SWARM_REGISTRY}\"]|" /etc/docker/daemon.json
fi
exec dockerd --tls=false
