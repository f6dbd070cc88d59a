#!/bin/bash
set -euo pipefail

case "${KAFKA_HEAP_MB:-}" in
  '' | *[!0-9]* | 0*) echo "kafka-entrypoint: KAFKA_HEAP_MB must be a positive whole number of MiB, got '${KAFKA_HEAP_MB:-}'" >&2; exit 64 ;;
esac

CONFIG=/opt/kafka/config/server.properties
JAVA_OPTS=(
  "-Xmx${KAFKA_HEAP_MB}m" "-Xms${KAFKA_HEAP_MB}m"
  -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
  -XX:+ExitOnOutOfMemoryError
  -Djava.awt.headless=true
  -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties
  -cp '/opt/kafka/lib/*'
)

# A data dir that was mounted over the one formatted at build time is formatted on first start.
LOG_DIR=$(sed -n 's/^log\.dirs=//p' "$CONFIG" | tail -n 1)
if [ -n "$LOG_DIR" ] && [ ! -f "${LOG_DIR%%,*}/meta.properties" ]; then
  java "${JAVA_OPTS[@]}" kafka.tools.StorageTool format --ignore-formatted -t "$KAFKA_CLUSTER_ID" -c "$CONFIG"
fi

exec java "${JAVA_OPTS[@]}" kafka.Kafka "$CONFIG"
