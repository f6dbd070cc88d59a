-- Per container and second: time throttled (ms in the interval) and network bytes per second in
-- and out. NULL in rows recorded before they were, and for a container without a network.
ALTER TABLE "container_samples"
  ADD COLUMN "throttled_ms" DOUBLE PRECISION,
  ADD COLUMN "net_rx_bps" DOUBLE PRECISION,
  ADD COLUMN "net_tx_bps" DOUBLE PRECISION;
