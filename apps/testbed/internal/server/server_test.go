package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/downstream"
	"scalelab/testbed/internal/pool"
	"scalelab/testbed/internal/ready"
	"scalelab/testbed/internal/reqlog"
	"scalelab/testbed/internal/store"
	"scalelab/testbed/internal/testutil"
)

const host = "sut-1"

func testConfig() config.Config {
	cfg := config.Defaults()
	cfg.CPUIterations = 7
	cfg.DownstreamCPUIterations = 3
	return cfg
}

func serve(t *testing.T, h http.Handler, method, target, body string) (*httptest.ResponseRecorder, any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	var v any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Errorf("%s %s: body %q is not JSON: %v", method, target, rec.Body.String(), err)
	}
	if got := rec.Header().Get("X-Backend"); got != host {
		t.Errorf("%s %s (status %d): X-Backend = %q, want %q", method, target, rec.Code, got, host)
	}
	return rec, v
}

func object(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("body %v is not a JSON object", v)
	}
	return m
}

func TestEndpoints(t *testing.T) {
	h := New(testConfig(), host, Deps{})
	tests := []struct {
		target string
		status int
		want   map[string]any
	}{
		{"/", 200, map[string]any{"hostname": host}},
		{"/hostname", 200, map[string]any{"hostname": host}},
		{"/health", 200, map[string]any{"status": "ok"}},
		{"/cpu", 200, map[string]any{"hostname": host, "iterations": float64(7)}},
		{"/cpu?n=1", 200, map[string]any{"hostname": host, "iterations": float64(1)}},
		{"/cpu?n=100000", 200, map[string]any{"hostname": host, "iterations": float64(100000)}},
	}
	for _, tt := range tests {
		rec, v := serve(t, h, http.MethodGet, tt.target, "")
		if rec.Code != tt.status {
			t.Errorf("GET %s: status %d, want %d", tt.target, rec.Code, tt.status)
		}
		body := object(t, v)
		for k, v := range tt.want {
			if body[k] != v {
				t.Errorf("GET %s: %s = %v, want %v", tt.target, k, body[k], v)
			}
		}
	}
}

func TestCPUBounds(t *testing.T) {
	h := New(testConfig(), host, Deps{})
	for _, n := range []string{"0", "-1", "100001", "abc", "1.5"} {
		rec, v := serve(t, h, http.MethodGet, "/cpu?n="+n, "")
		if rec.Code != http.StatusBadRequest {
			t.Errorf("n=%s: status %d, want 400", n, rec.Code)
		}
		if object(t, v)["error"] == nil {
			t.Errorf("n=%s: no error message in %v", n, v)
		}
	}
}

func TestNotFoundKeepsBackendHeader(t *testing.T) {
	h := New(testConfig(), host, Deps{})
	for _, req := range []struct{ method, target string }{
		{"GET", "/nope"}, {"POST", "/cpu"}, {"GET", "/hostname/extra"}, {"POST", "/events"}, {"DELETE", "/activity"},
	} {
		if rec, _ := serve(t, h, req.method, req.target, ""); rec.Code != http.StatusNotFound && rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: status %d", req.method, req.target, rec.Code)
		}
	}
}

func TestBackendHeaderOff(t *testing.T) {
	cfg := testConfig()
	cfg.BackendHeader = config.BackendHeaderOff
	h := New(cfg, host, Deps{})
	for _, target := range []string{"/hostname", "/cpu", "/nope", "/health"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if got, ok := rec.Header()["X-Backend"]; ok {
			t.Errorf("GET %s (status %d): X-Backend = %q, want none", target, rec.Code, got)
		}
		if target == "/hostname" && (rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), host)) {
			t.Errorf("GET /hostname: %d %s", rec.Code, rec.Body.String())
		}
	}
}

func TestStoreEndpointsWithoutStorage(t *testing.T) {
	h := New(testConfig(), host, Deps{})
	for _, req := range []struct{ method, target string }{{"GET", "/products"}, {"POST", "/activity"}, {"GET", "/activity"}} {
		rec, v := serve(t, h, req.method, req.target, "")
		if rec.Code != http.StatusBadRequest || !strings.Contains(object(t, v)["error"].(string), "TESTBED_STORAGE") {
			t.Errorf("%s %s: %d %v, want 400 with an error", req.method, req.target, rec.Code, v)
		}
	}
}

func TestStoreEndpointsBeforeTheStoreIsReady(t *testing.T) {
	cfg := testConfig()
	cfg.Storage = config.StoragePostgres
	h := New(cfg, host, Deps{})
	rec, v := serve(t, h, "GET", "/products", "")
	if rec.Code != http.StatusServiceUnavailable || object(t, v)["error"] != "postgres not ready" {
		t.Errorf("GET /products: %d %v", rec.Code, v)
	}
}

// fakeStore optionally blocks Products until gate is closed, counting concurrent calls.
type fakeStore struct {
	gate chan struct{}

	mu                  sync.Mutex
	running, maxRunning int
	fail                bool
}

func (f *fakeStore) Products(ctx context.Context) ([]store.Product, error) {
	f.mu.Lock()
	f.running++
	f.maxRunning = max(f.maxRunning, f.running)
	f.mu.Unlock()
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	f.running--
	f.mu.Unlock()
	name, price := "widget", 9.99
	return []store.Product{{ID: 1, Name: &name, Price: &price}, {ID: 2}}, nil
}

func (f *fakeStore) InsertActivity(ctx context.Context) (string, error) {
	if f.fail {
		return "", errors.New("boom")
	}
	return "0b7e6a3c-3f1e-4c55-9a53-8e6f7f0d2a11", nil
}

func (f *fakeStore) Close() {}

func withStore(st store.Store) *ready.Value[store.Store] {
	v := &ready.Value[store.Store]{}
	v.Set(st)
	return v
}

func TestStoreEndpoints(t *testing.T) {
	cfg := testConfig()
	cfg.Storage = config.StorageCassandra
	fs := &fakeStore{}
	h := New(cfg, host, Deps{Store: withStore(fs)})

	rec, v := serve(t, h, "GET", "/products", "")
	want := []any{
		map[string]any{"id": float64(1), "name": "widget", "price": 9.99},
		map[string]any{"id": float64(2), "name": nil, "price": nil},
	}
	if rec.Code != http.StatusOK || !reflect.DeepEqual(v, want) {
		t.Errorf("GET /products: %d %v", rec.Code, v)
	}
	for _, method := range []string{"POST", "GET"} {
		rec, v = serve(t, h, method, "/activity", "")
		if rec.Code != http.StatusCreated || object(t, v)["id"] == "" {
			t.Errorf("%s /activity: %d %v", method, rec.Code, v)
		}
	}
	fs.fail = true
	if rec, v = serve(t, h, "POST", "/activity", ""); rec.Code != http.StatusInternalServerError {
		t.Errorf("failing POST /activity: %d %v", rec.Code, v)
	}
}

func getStats(t *testing.T, h http.Handler) map[string]any {
	t.Helper()
	rec, v := serve(t, h, "GET", "/stats", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /stats: %d", rec.Code)
	}
	return object(t, v)
}

// field reads a dotted path such as "pool.busy" out of a decoded /stats body.
func field(t *testing.T, m map[string]any, path string) any {
	t.Helper()
	var v any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("stats: %s is not an object in %v", path, m)
		}
		if v, ok = obj[k]; !ok {
			t.Fatalf("stats: no field %s in %v", path, m)
		}
	}
	return v
}

func TestPoolQueueAndGauges(t *testing.T) {
	cfg := testConfig()
	cfg.Storage = config.StoragePostgres
	fs := &fakeStore{gate: make(chan struct{})}
	h := New(cfg, host, Deps{Pool: pool.New(2, 1), Store: withStore(fs)})

	codes := make(chan int, 3)
	for range 3 {
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/products", nil))
			codes <- rec.Code
		}()
	}
	testutil.Eventually(t, "2 busy and 1 queued", func() bool {
		s := getStats(t, h)
		return field(t, s, "pool.busy") == float64(2) && field(t, s, "pool.queued") == float64(1)
	})

	rec, v := serve(t, h, "GET", "/products", "")
	if rec.Code != http.StatusServiceUnavailable || object(t, v)["error"] != "queue full" {
		t.Fatalf("request beyond the queue: %d %v, want 503 queue full", rec.Code, v)
	}
	if rec, _ := serve(t, h, "GET", "/health", ""); rec.Code != http.StatusOK {
		t.Fatalf("/health waited for the pool: %d", rec.Code)
	}
	s := getStats(t, h)
	for path, want := range map[string]float64{"pool.size": 2, "pool.busy": 2, "pool.queued": 1, "pool.rejected": 1, "requests": 4} {
		if got := field(t, s, path); got != want {
			t.Errorf("stats %s = %v, want %v", path, got, want)
		}
	}

	close(fs.gate)
	for range 3 {
		if code := <-codes; code != http.StatusOK {
			t.Errorf("waiting request answered %d", code)
		}
	}
	if fs.maxRunning != 2 {
		t.Errorf("%d requests worked at once, want 2", fs.maxRunning)
	}
	s = getStats(t, h)
	if field(t, s, "pool.busy") != float64(0) || field(t, s, "pool.queued") != float64(0) {
		t.Errorf("gauges after the burst: %v", s["pool"])
	}
}

func TestUnboundedPoolCountsInFlight(t *testing.T) {
	cfg := testConfig()
	cfg.Storage = config.StoragePostgres
	fs := &fakeStore{gate: make(chan struct{})}
	h := New(cfg, host, Deps{Store: withStore(fs)})
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/products", nil))
		}()
	}
	testutil.Eventually(t, "5 busy", func() bool { return field(t, getStats(t, h), "pool.busy") == float64(5) })
	if got := field(t, getStats(t, h), "pool.size"); got != float64(0) {
		t.Errorf("pool.size = %v, want 0", got)
	}
	close(fs.gate)
	wg.Wait()
}

func TestStatsFields(t *testing.T) {
	s := getStats(t, New(testConfig(), host, Deps{}))
	for _, path := range []string{
		"role", "requests", "pool.size", "pool.busy", "pool.queued", "pool.rejected",
		"log.lines", "log.flushes", "log.dropped", "downstream.mode", "downstream.sent", "downstream.errors",
		"consumed", "consumeErrors",
	} {
		field(t, s, path)
	}
	if s["role"] != "service" || field(t, s, "downstream.mode") != "none" {
		t.Errorf("stats = %v", s)
	}
}

func TestHealthWaitsForDependencies(t *testing.T) {
	deps := &ready.Set{}
	deps.Add("postgres")
	deps.Add("kafka")
	h := New(testConfig(), host, Deps{Ready: deps})
	rec, v := serve(t, h, "GET", "/health", "")
	want := map[string]any{"status": "starting", "waiting": []any{"postgres", "kafka"}}
	if rec.Code != http.StatusServiceUnavailable || !reflect.DeepEqual(v, want) {
		t.Fatalf("GET /health: %d %v", rec.Code, v)
	}
	deps.Done("postgres")
	deps.Done("kafka")
	if rec, v := serve(t, h, "GET", "/health", ""); rec.Code != http.StatusOK || object(t, v)["status"] != "ok" {
		t.Fatalf("GET /health when ready: %d %v", rec.Code, v)
	}
}

// timeRequest returns how long GET / took through h.
func timeRequest(h http.Handler) time.Duration {
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	return time.Since(start)
}

func TestLoggingModes(t *testing.T) {
	const flush = 50 * time.Millisecond
	for _, mode := range []string{config.LoggingBlocking, config.LoggingAsync} {
		t.Run(mode, func(t *testing.T) {
			cfg := testConfig()
			cfg.Logging, cfg.LogFlushMS = mode, int(flush/time.Millisecond)
			path := filepath.Join(t.TempDir(), "requests.log")
			logger, err := reqlog.Open(mode, path, flush)
			if err != nil {
				t.Fatal(err)
			}
			p := pool.New(1, 0)
			h := New(cfg, host, Deps{Pool: p, Log: logger})

			// Two requests on one worker: blocking logging holds it for the flush each time.
			var wg sync.WaitGroup
			latencies := make([]time.Duration, 2)
			start := time.Now()
			for i := range latencies {
				wg.Add(1)
				go func() { defer wg.Done(); latencies[i] = timeRequest(h) }()
			}
			wg.Wait()
			total := time.Since(start)
			if mode == config.LoggingBlocking {
				if slices.Min(latencies) < flush || total < 2*flush {
					t.Errorf("latencies %v, total %v: want each >= %v and the pair >= %v", latencies, total, flush, 2*flush)
				}
			} else if slices.Max(latencies) >= flush {
				t.Errorf("latencies %v: async logging made a request wait for the %v flush", latencies, flush)
			}

			if err := logger.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], "host=sut-1 method=GET path=/ status=200 ") {
				t.Fatalf("log file:\n%s", b)
			}
			if n := len(lines[0]); n < 80 || n > 140 {
				t.Errorf("log line is %d bytes, want about 100: %q", n, lines[0])
			}
			s := getStats(t, h)
			if field(t, s, "log.lines") != float64(2) || field(t, s, "log.mode") != mode {
				t.Errorf("stats log = %v", s["log"])
			}
		})
	}
}

// logsServer runs the logs role on an httptest server, recording the bodies it got.
func logsServer(t *testing.T) (*httptest.Server, *Metrics, func() [][]byte) {
	t.Helper()
	cfg := testConfig()
	cfg.Role = config.RoleLogs
	m := &Metrics{}
	logs := New(cfg, host, Deps{Metrics: m})
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(r.Body)
		mu.Lock()
		bodies = append(bodies, buf.Bytes())
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
		logs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, m, func() [][]byte { mu.Lock(); defer mu.Unlock(); return slices.Clone(bodies) }
}

func syncService(url string) (http.Handler, *Metrics) {
	cfg := testConfig()
	cfg.Downstream = config.DownstreamSync
	sender := &ready.Value[Sender]{}
	sender.Set(downstream.NewHTTP(url))
	m := &Metrics{}
	return New(cfg, host, Deps{Sender: sender, Metrics: m}), m
}

func TestSyncDownstream(t *testing.T) {
	logs, logsMetrics, bodies := logsServer(t)
	h, m := syncService(logs.URL + "/events")
	for range 3 {
		if rec, v := serve(t, h, "GET", "/cpu", ""); rec.Code != http.StatusOK {
			t.Fatalf("GET /cpu: %d %v", rec.Code, v)
		}
	}
	// A failed work request hands nothing on.
	serve(t, h, "GET", "/cpu?n=0", "")

	if m.Sent.Load() != 3 || m.SendErrors.Load() != 0 || logsMetrics.Consumed.Load() != 3 {
		t.Fatalf("sent %d, errors %d, consumed by logs %d", m.Sent.Load(), m.SendErrors.Load(), logsMetrics.Consumed.Load())
	}
	for _, b := range bodies() {
		var ev map[string]string
		if err := json.Unmarshal(b, &ev); err != nil || len(ev) != 1 || len(ev["payload"]) != 100 {
			t.Errorf("event %s: want {\"payload\": <100 chars>}", b)
		}
	}
	s := getStats(t, h)
	if field(t, s, "downstream.mode") != "sync" || field(t, s, "downstream.sent") != float64(3) {
		t.Errorf("stats downstream = %v", s["downstream"])
	}
}

func TestSyncDownstreamFailure(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer failing.Close()
	h, m := syncService(failing.URL)
	rec, v := serve(t, h, "GET", "/", "")
	if rec.Code != http.StatusBadGateway || !strings.Contains(object(t, v)["error"].(string), "500") {
		t.Fatalf("GET / with a failing logs server: %d %v, want 502", rec.Code, v)
	}

	failing.Close()
	if rec, _ := serve(t, h, "GET", "/", ""); rec.Code != http.StatusBadGateway {
		t.Fatalf("GET / with no logs server: %d, want 502", rec.Code)
	}
	if m.Sent.Load() != 0 || m.SendErrors.Load() != 2 {
		t.Fatalf("sent %d, errors %d", m.Sent.Load(), m.SendErrors.Load())
	}
}

func TestAsyncDownstreamBeforeKafkaIsReady(t *testing.T) {
	cfg := testConfig()
	cfg.Downstream = config.DownstreamAsync
	h := New(cfg, host, Deps{})
	if rec, v := serve(t, h, "GET", "/", ""); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("GET /: %d %v, want 503", rec.Code, v)
	}
}

func TestLogsRole(t *testing.T) {
	cfg := testConfig()
	cfg.Role = config.RoleLogs
	cfg.Downstream = config.DownstreamSync // ignored: the logs role is a sink
	m := &Metrics{}
	h := New(cfg, host, Deps{Metrics: m})
	rec, v := serve(t, h, "POST", "/events", `{"payload":"abc"}`)
	if rec.Code != http.StatusOK || object(t, v)["ok"] != true {
		t.Fatalf("POST /events: %d %v", rec.Code, v)
	}
	if rec, _ := serve(t, h, "POST", "/events", `not json`); rec.Code != http.StatusBadRequest {
		t.Fatalf("POST /events with a bad body: %d", rec.Code)
	}
	if rec, _ := serve(t, h, "GET", "/", ""); rec.Code != http.StatusNotFound {
		t.Fatalf("GET / in the logs role: %d, want 404", rec.Code)
	}
	s := getStats(t, h)
	if s["role"] != "logs" || s["consumed"] != float64(1) || s["consumeErrors"] != float64(1) ||
		s["requests"] != float64(2) || field(t, s, "downstream.mode") != "none" {
		t.Fatalf("stats = %v", s)
	}
}

func TestConsumerRoleHasNoWorkEndpoints(t *testing.T) {
	cfg := testConfig()
	cfg.Role = config.RoleConsumer
	m := &Metrics{}
	m.Consumed.Add(5)
	h := New(cfg, host, Deps{Metrics: m})
	for _, req := range []struct{ method, target string }{{"GET", "/"}, {"GET", "/cpu"}, {"POST", "/events"}} {
		if rec, _ := serve(t, h, req.method, req.target, ""); rec.Code != http.StatusNotFound {
			t.Errorf("%s %s in the consumer role: %d, want 404", req.method, req.target, rec.Code)
		}
	}
	if s := getStats(t, h); s["role"] != "consumer" || s["consumed"] != float64(5) {
		t.Fatalf("stats = %v", s)
	}
}
