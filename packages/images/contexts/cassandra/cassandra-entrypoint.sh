#!/bin/bash
set -euo pipefail

case "${CASSANDRA_HEAP_MB:-}" in
  '' | *[!0-9]* | 0*) echo "cassandra-entrypoint: CASSANDRA_HEAP_MB must be a positive whole number of MiB, got '${CASSANDRA_HEAP_MB:-}'" >&2; exit 64 ;;
esac

# Gossip settling and the ring delay are for multi-node clusters: without them one node is
# ready in seconds instead of a minute. Without cassandra-foreground (what bin/cassandra -f
# sets) the daemon closes stdout once it has set up, and its log goes nowhere.
exec java "-Xmx${CASSANDRA_HEAP_MB}m" @/opt/cassandra/conf/jvm17.args \
  -XX:+ExitOnOutOfMemoryError \
  -Dcassandra-foreground=yes \
  -Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcassandra.ring_delay_ms=100 \
  -Dcassandra.jmx.local.port=7199 \
  -cp '/opt/cassandra/conf:/opt/cassandra/lib/*' \
  org.apache.cassandra.service.CassandraDaemon -f
