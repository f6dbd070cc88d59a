package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/downstream"
	"scalelab/testbed/internal/pool"
	"scalelab/testbed/internal/ready"
	"scalelab/testbed/internal/rediskey"
	"scalelab/testbed/internal/reqlog"
	"scalelab/testbed/internal/testutil"
)

// hotValue is experiment 7's HOT_VALUE (packages/scenarios/src/hotkey.ts).
var hotValue = ("scalelab-hot-value-" + strings.Repeat("0123456789abcdef", 6))[:100]

// fakeKey answers value or err, optionally after gate is closed.
type fakeKey struct {
	value []byte
	err   error
	gate  chan struct{}
}

func (f *fakeKey) Get(ctx context.Context) ([]byte, error) {
	if f.gate != nil {
		<-f.gate
	}
	return f.value, f.err
}

func withKey(k KeyReader) *ready.Value[KeyReader] {
	v := &ready.Value[KeyReader]{}
	v.Set(k)
	return v
}

func keyConfig() config.Config {
	cfg := testConfig()
	cfg.RedisAddr = "redis:6379"
	return cfg
}

// getKey returns GET /key's status, body and Content-Type through h, checking X-Backend.
func getKey(t *testing.T, h http.Handler) (int, string, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/key", nil))
	if got := rec.Header().Get("X-Backend"); got != host {
		t.Errorf("GET /key (status %d): X-Backend = %q, want %q", rec.Code, got, host)
	}
	return rec.Code, rec.Body.String(), rec.Header().Get("Content-Type")
}

func TestKeyAnswersTheValueAsText(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "requests.log")
	logger, err := reqlog.Open(config.LoggingBlocking, logPath, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := &Metrics{}
	h := New(keyConfig(), host, Deps{Log: logger, Metrics: m, Key: withKey(&fakeKey{value: []byte(hotValue)})})

	code, body, ctype := getKey(t, h)
	if code != http.StatusOK || body != hotValue || ctype != "text/plain" {
		t.Fatalf("GET /key: %d %q (%s), want 200 and the value as text/plain", code, body, ctype)
	}
	if m.Requests.Load() != 1 {
		t.Errorf("requests = %d, want 1", m.Requests.Load())
	}
	if err := logger.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "host=sut-1 method=GET path=/key status=200 ") {
		t.Errorf("log file:\n%s", b)
	}
}

func TestKeyErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		cfg    config.Config
		key    KeyReader
		status int
		msg    string
	}{
		{"no Redis configured", testConfig(), &fakeKey{value: []byte("x")}, 503, "no Redis configured (TESTBED_REDIS_ADDR is empty)"},
		{"no reader", keyConfig(), nil, 503, "redis not ready"},
		{"missing key", keyConfig(), &fakeKey{err: rediskey.ErrNotFound}, 404, `key "hot" not found in redis at redis:6379`},
		{"Redis error", keyConfig(), &fakeKey{err: errors.New("redis GET hot: dial tcp: connection refused")}, 502, "redis GET hot: dial tcp: connection refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Deps{}
			if tt.key != nil {
				d.Key = withKey(tt.key)
			}
			h := New(tt.cfg, host, d)
			rec, v := serve(t, h, "GET", "/key", "")
			if rec.Code != tt.status || object(t, v)["error"] != tt.msg {
				t.Errorf("GET /key: %d %v, want %d %q", rec.Code, v, tt.status, tt.msg)
			}
			if rec, _ := serve(t, h, "GET", "/health", ""); rec.Code != http.StatusOK {
				t.Errorf("GET /health: %d, want 200 whatever Redis does", rec.Code)
			}
		})
	}
}

func TestKeyOnlyInTheServiceRole(t *testing.T) {
	for _, role := range []string{config.RoleLogs, config.RoleConsumer} {
		cfg := keyConfig()
		cfg.Role = role
		h := New(cfg, host, Deps{Key: withKey(&fakeKey{value: []byte("x")})})
		if rec, _ := serve(t, h, "GET", "/key", ""); rec.Code != http.StatusNotFound {
			t.Errorf("GET /key in the %s role: %d, want 404", role, rec.Code)
		}
	}
}

// /key shares the work path of /hostname: the pool and its queue, the counters, the hand-off.
func TestKeyGoesThroughThePool(t *testing.T) {
	cfg := keyConfig()
	cfg.Downstream = config.DownstreamSync
	logs, logsMetrics, _ := logsServer(t)
	sender := &ready.Value[Sender]{}
	sender.Set(downstream.NewHTTP(logs.URL + "/events"))
	k := &fakeKey{value: []byte(hotValue), gate: make(chan struct{})}
	m := &Metrics{}
	h := New(cfg, host, Deps{Pool: pool.New(1, 1), Key: withKey(k), Sender: sender, Metrics: m})

	codes := make(chan int, 2)
	for range 2 {
		go func() { code, _, _ := getKey(t, h); codes <- code }()
	}
	testutil.Eventually(t, "1 busy and 1 queued", func() bool {
		s := getStats(t, h)
		return field(t, s, "pool.busy") == float64(1) && field(t, s, "pool.queued") == float64(1)
	})
	rec, v := serve(t, h, "GET", "/key", "")
	if rec.Code != http.StatusServiceUnavailable || object(t, v)["error"] != "queue full" {
		t.Fatalf("GET /key beyond the queue: %d %v, want 503 queue full", rec.Code, v)
	}
	close(k.gate)
	for range 2 {
		if code := <-codes; code != http.StatusOK {
			t.Errorf("queued GET /key answered %d", code)
		}
	}
	s := getStats(t, h)
	for path, want := range map[string]float64{"requests": 3, "pool.rejected": 1, "downstream.sent": 2} {
		if got := field(t, s, path); got != want {
			t.Errorf("stats %s = %v, want %v", path, got, want)
		}
	}
	if logsMetrics.Consumed.Load() != 2 {
		t.Errorf("logs consumed %d events, want 2", logsMetrics.Consumed.Load())
	}
}

// Over HTTP with a real Redis: the value, then a missing key, then Redis gone.
func TestKeyWithRedis(t *testing.T) {
	redis := testutil.StartRedis(t)
	redis.Do(t, "SET", "hot", hotValue)
	cfg := keyConfig()
	cfg.RedisAddr = redis.Addr
	kr := rediskey.New(cfg.RedisAddr, cfg.RedisKey, 0)
	defer kr.Close()
	srv := httptest.NewServer(New(cfg, host, Deps{Key: withKey(kr)}))
	defer srv.Close()

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("X-Backend") != host {
			t.Errorf("GET %s: X-Backend = %q", path, resp.Header.Get("X-Backend"))
		}
		return resp.StatusCode, string(b)
	}
	if code, body := get("/key"); code != 200 || body != hotValue {
		t.Fatalf("GET /key: %d %q", code, body)
	}
	redis.Do(t, "DEL", "hot")
	if code, body := get("/key"); code != 404 || !strings.Contains(body, `not found`) {
		t.Fatalf("GET /key after DEL: %d %s", code, body)
	}
	redis.Stop()
	if code, body := get("/key"); code != 502 || !strings.Contains(body, "connection refused") {
		t.Fatalf("GET /key with Redis stopped: %d %s", code, body)
	}
	if code, body := get("/health"); code != 200 {
		t.Fatalf("GET /health with Redis stopped: %d %s", code, body)
	}
}
