package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/server"
	"scalelab/testbed/internal/testutil"
)

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
	testutil.Eventually(t, "both ready", func() bool { return len(svc.Ready.Waiting())+len(cons.Ready.Waiting()) == 0 })

	h := server.New(svcCfg, "sut-1", svc)
	for range 5 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /: %d %s", rec.Code, rec.Body)
		}
	}
	// The requests answered before the broker acknowledged their events.
	testutil.Eventually(t, "5 acknowledged", func() bool { return svc.Metrics.Sent.Load() == 5 })
	testutil.Eventually(t, "5 consumed", func() bool { return cons.Metrics.Consumed.Load() == 5 })

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

// With RabbitMQ as the broker, both roles wait for it (/health answers 503) and the service
// answers 503 until its publisher first connected. The broker itself is proven in
// packages/images (images.integration.test.ts).
func TestWaitsForAnUnreachableRabbitMQ(t *testing.T) {
	for _, role := range []string{config.RoleService, config.RoleConsumer} {
		cfg := config.Defaults()
		cfg.Role, cfg.Downstream, cfg.Broker = role, config.DownstreamAsync, config.BrokerRabbitMQ
		cfg.AMQPURL = "amqp://lab:lab@127.0.0.1:1/"
		d := newDeps(cfg, nil)
		ctx, cancel := context.WithCancel(context.Background())
		closeAll := connect(ctx, cfg, d)
		if got := d.Ready.Waiting(); !slices.Equal(got, []string{"rabbitmq"}) {
			t.Fatalf("%s: waiting = %v", role, got)
		}
		h := server.New(cfg, "sut-1", d)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: GET /health: %d %s", role, rec.Code, rec.Body)
		}
		if role == config.RoleService {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code != http.StatusServiceUnavailable {
				t.Errorf("GET / before the broker: %d %s", rec.Code, rec.Body)
			}
		}
		cancel()
		closeAll() // returns once the retries stopped
	}
}

// The service reads the hot key from Redis, which /health does not wait for.
func TestServiceReadsTheKeyFromRedis(t *testing.T) {
	redis := testutil.StartRedis(t)
	redis.Do(t, "SET", "exp7", "value-1")
	cfg := config.Defaults()
	cfg.RedisAddr, cfg.RedisKey, cfg.WorkerPool = redis.Addr, "exp7", 2
	d := newDeps(cfg, nil)
	ctx, cancel := context.WithCancel(context.Background())
	closeAll := connect(ctx, cfg, d)
	defer func() { cancel(); closeAll() }()
	if got := d.Ready.Waiting(); len(got) != 0 {
		t.Fatalf("waiting for %v", got)
	}
	h := server.New(cfg, "sut-1", d)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/key"); code != http.StatusOK || body != "value-1" {
		t.Fatalf("GET /key: %d %q", code, body)
	}
	redis.Stop()
	if code, body := get("/key"); code != http.StatusBadGateway {
		t.Fatalf("GET /key with Redis stopped: %d %s", code, body)
	}
	if code, body := get("/health"); code != http.StatusOK {
		t.Fatalf("GET /health with Redis stopped: %d %s", code, body)
	}
}
