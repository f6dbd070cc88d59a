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
exec dockerd --tls=false
