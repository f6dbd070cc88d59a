#!/bin/bash
# Starts RabbitMQ in the foreground, sized for the container's memory. RabbitMQ 3.10 reads the
# host's RAM, not a cgroup limit, so the memory it computes its watermark from is written to
# conf.d/10-memory.conf (total_memory_available_override_value): RABBITMQ_MEMORY_MB when set,
# otherwise the container's memory limit (cgroup v1 or v2), otherwise nothing (the host's RAM).
# The server's script stays PID 1 and stops the node cleanly on SIGTERM. The readiness line is
# "Server startup complete"; the AMQP port (5672) listens just before it.
set -euo pipefail
MEMORY_CONF=/etc/rabbitmq/conf.d/10-memory.conf

memory_mb=${RABBITMQ_MEMORY_MB:-}
from="RABBITMQ_MEMORY_MB"
if [[ -n $memory_mb ]]; then
  case $memory_mb in
    *[!0-9]* | 0*) echo "rabbitmq-entrypoint: RABBITMQ_MEMORY_MB must be a positive whole number of MiB, got '$memory_mb'" >&2; exit 64 ;;
  esac
else
  limit=
  for f in /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max; do
    if [[ -r $f ]]; then
      limit=$(<"$f")
      break
    fi
  done
  host_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
  # No limit reads as "max" (v2) or a huge number (v1).
  if [[ $limit =~ ^[0-9]+$ && ${#limit} -lt 19 && $host_kib =~ ^[0-9]+$ ]] && ((limit / 1024 < host_kib)); then
    memory_mb=$((limit / 1048576))
    from="the container's memory limit"
  fi
fi

if [[ -n $memory_mb ]]; then
  echo "total_memory_available_override_value = $((memory_mb * 1048576))" >"$MEMORY_CONF"
  echo "rabbitmq-entrypoint: sized for ${memory_mb} MiB (${from})"
else
  rm -f "$MEMORY_CONF"
  echo "rabbitmq-entrypoint: no memory limit found, sized for the host's memory"
fi

# A home directory mounted over the image's has no cookie yet: the node needs one, owner-only.
cookie="${HOME:-/var/lib/rabbitmq}/.erlang.cookie"
if [[ ! -s $cookie ]]; then
  (umask 077 && od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$cookie")
  chmod 400 "$cookie"
fi

exec /usr/lib/rabbitmq/bin/rabbitmq-server "$@"
