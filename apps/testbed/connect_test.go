package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/server"
)

// eventually polls cond; it waits for a state, it does not assert timing.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServiceToConsumerThroughKafka(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()

	cfg := config.Defaults()
	cfg.KafkaBrokers = cluster.ListenAddrs()
	cfg.KafkaPartitions = 2
	cfg.DownstreamCPUIterations = 1
	svcCfg, consCfg := cfg, cfg
	svcCfg.Downstream = config.DownstreamAsync
	consCfg.Role = config.RoleConsumer
	svc, cons := newDeps(svcCfg, nil), newDeps(consCfg, nil)

	ctx, cancel := context.WithCancel(context.Background())
	closeSvc, closeCons := connect(ctx, svcCfg, svc), connect(ctx, consCfg, cons)
	eventually(t, "both ready", func() bool { return len(svc.Ready.Waiting())+len(cons.Ready.Waiting()) == 0 })

	h := server.New(svcCfg, "sut-1", svc)
	for range 5 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /: %d %s", rec.Code, rec.Body)
		}
	}
	if got := svc.Metrics.Sent.Load(); got != 5 {
		t.Fatalf("sent %d, want 5", got)
	}
	eventually(t, "5 consumed", func() bool { return cons.Metrics.Consumed.Load() == 5 })

	cancel()
	closeSvc()
	closeCons()
}

func TestWaitsForAnUnreachableBroker(t *testing.T) {
	cfg := config.Defaults()
	cfg.Role = config.RoleConsumer
	cfg.KafkaBrokers = []string{"127.0.0.1:1"}
	d := newDeps(cfg, nil)
	ctx, cancel := context.WithCancel(context.Background())
	closeAll := connect(ctx, cfg, d)
	if got := d.Ready.Waiting(); !slices.Equal(got, []string{"kafka"}) {
		t.Fatalf("waiting = %v", got)
	}
	cancel()
	closeAll() // returns once the retries stopped
	if got := d.Ready.Waiting(); !slices.Equal(got, []string{"kafka"}) {
		t.Fatalf("waiting after giving up = %v", got)
	}
}
