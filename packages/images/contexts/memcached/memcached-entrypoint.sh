#!/bin/bash
# Starts memcached with the given options and, when the run wrote /etc/memcached/seed.txt
# (commands in memcached's text protocol, ending with `quit`), sends it once the server listens
# and prints `memcached seeded`, the line the run's readiness probe waits for. Bash stays PID 1
# only to pass SIGTERM on and wait.
set -uo pipefail
SEED=/etc/memcached/seed.txt

memcached -l 0.0.0.0 -p 11211 "$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT

if [[ -f $SEED ]]; then
  for _ in $(seq 100); do
    exec 3<>/dev/tcp/127.0.0.1/11211 && break
    sleep 0.1
  done 2>/dev/null
  replies=$(cat "$SEED" >&3 && cat <&3)
  if [[ $replies != *STORED* || $replies == *ERROR* ]]; then
    echo "memcached seed failed: ${replies:-no connection}" >&2
    kill -TERM "$pid"
    exit 1
  fi
  exec 3>&-
  echo "memcached seeded"
fi

status=0
wait "$pid" || status=$?
# A signal ends the first wait early: wait again for memcached to exit.
if kill -0 "$pid" 2>/dev/null; then
  status=0
  wait "$pid" || status=$?
fi
exit "$status"
