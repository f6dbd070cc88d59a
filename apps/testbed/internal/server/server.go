// Package server holds the testbed's HTTP handlers.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/cpuwork"
	"scalelab/testbed/internal/pool"
	"scalelab/testbed/internal/ready"
	"scalelab/testbed/internal/rediskey"
	"scalelab/testbed/internal/reqlog"
	"scalelab/testbed/internal/store"
)

// Sender hands an event downstream. A synchronous sender returns once the event is
// handled; an asynchronous one (Kafka, RabbitMQ) once it is handed to its client, so the
// request answers at once. Either calls done exactly once with the event's outcome: handled,
// or acknowledged by the broker.
type Sender interface {
	Send(ctx context.Context, event []byte, done func(error)) error
}

// KeyReader reads the hot key of GET /key (rediskey.Reader): its value, rediskey.ErrNotFound
// when it is not set, or the store's error.
type KeyReader interface {
	Get(ctx context.Context) ([]byte, error)
}

// Metrics are the counters of /stats that other parts of the process also feed.
type Metrics struct {
	Requests      atomic.Int64 // work requests received, rejected ones included
	Sent          atomic.Int64 // events handled downstream (sync) or acknowledged by the broker (async)
	SendErrors    atomic.Int64 // events that could not be handed downstream
	Consumed      atomic.Int64 // events processed (logs and consumer roles)
	ConsumeErrors atomic.Int64 // events or fetches that failed (logs and consumer roles)
}

// Deps are the parts of the process the handlers use; nil fields get inert defaults.
type Deps struct {
	Pool    *pool.Pool
	Log     reqlog.Logger
	Ready   *ready.Set
	Store   *ready.Value[store.Store]
	Sender  *ready.Value[Sender]
	Key     *ready.Value[KeyReader]
	Metrics *Metrics
}

type server struct {
	Deps
	cfg      config.Config
	hostname string
}

// New returns the handler of cfg.Role. Every response, errors included, carries
// X-Backend so the load generator can count responses per replica (unless cfg.BackendHeader
// is off: then the testbed names itself nowhere, as most services).
func New(cfg config.Config, hostname string, d Deps) http.Handler {
	s := newServer(cfg, hostname, d)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.healthHandler)
	mux.HandleFunc("GET /stats", s.statsHandler)
	switch cfg.Role {
	case config.RoleLogs:
		mux.HandleFunc("POST /events", s.work(s.events))
	case config.RoleConsumer:
		// The consumer's work comes from the broker (Kafka or RabbitMQ), not HTTP.
	default:
		mux.HandleFunc("GET /{$}", s.work(s.hostnameWork))
		mux.HandleFunc("GET /hostname", s.work(s.hostnameWork))
		mux.HandleFunc("GET /cpu", s.work(s.cpu))
		mux.HandleFunc("GET /products", s.work(s.products))
		mux.HandleFunc("POST /activity", s.work(s.activity))
		mux.HandleFunc("GET /activity", s.work(s.activity))
		mux.HandleFunc("GET /key", s.work(s.key))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody("not found"))
	})
	if cfg.BackendHeader == config.BackendHeaderOff {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Backend", hostname)
		mux.ServeHTTP(w, r)
	})
}

// newServer fills d's nil fields with inert defaults.
func newServer(cfg config.Config, hostname string, d Deps) *server {
	if d.Pool == nil {
		d.Pool = pool.New(0, 0)
	}
	if d.Log == nil {
		d.Log = reqlog.Discard
	}
	if d.Ready == nil {
		d.Ready = &ready.Set{}
	}
	if d.Store == nil {
		d.Store = &ready.Value[store.Store]{}
	}
	if d.Sender == nil {
		d.Sender = &ready.Value[Sender]{}
	}
	if d.Key == nil {
		d.Key = &ready.Value[KeyReader]{}
	}
	if d.Metrics == nil {
		d.Metrics = &Metrics{}
	}
	return &server{Deps: d, cfg: cfg, hostname: hostname}
}

func (s *server) healthHandler(w http.ResponseWriter, r *http.Request) {
	if waiting := s.Ready.Waiting(); len(waiting) > 0 {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "starting", "waiting": waiting})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

type logStats struct {
	Mode string `json:"mode"`
	reqlog.Stats
}

type downstreamStats struct {
	Mode   string `json:"mode"`
	Sent   int64  `json:"sent"`
	Errors int64  `json:"errors"`
}

type stats struct {
	Role          string          `json:"role"`
	Hostname      string          `json:"hostname"`
	GOMAXPROCS    int             `json:"gomaxprocs"`
	Requests      int64           `json:"requests"`
	Pool          pool.Stats      `json:"pool"`
	Log           logStats        `json:"log"`
	Downstream    downstreamStats `json:"downstream"`
	Consumed      int64           `json:"consumed"`
	ConsumeErrors int64           `json:"consumeErrors"`
}

func (s *server) statsHandler(w http.ResponseWriter, r *http.Request) {
	m := s.Metrics
	writeJSON(w, http.StatusOK, stats{
		Role:          s.cfg.Role,
		Hostname:      s.hostname,
		GOMAXPROCS:    runtime.GOMAXPROCS(0),
		Requests:      m.Requests.Load(),
		Pool:          s.Pool.Stats(),
		Log:           logStats{Mode: s.cfg.Logging, Stats: s.Log.Stats()},
		Downstream:    downstreamStats{Mode: s.downstreamMode(), Sent: m.Sent.Load(), Errors: m.SendErrors.Load()},
		Consumed:      m.Consumed.Load(),
		ConsumeErrors: m.ConsumeErrors.Load(),
	})
}

// downstreamMode is the mode in effect: only the service role hands events on.
func (s *server) downstreamMode() string {
	if s.cfg.Role != config.RoleService {
		return config.DownstreamNone
	}
	return s.cfg.Downstream
}

func (s *server) hostnameWork(r *http.Request) (int, any) {
	return http.StatusOK, map[string]string{"hostname": s.hostname}
}

func (s *server) cpu(r *http.Request) (int, any) {
	n := s.cfg.CPUIterations
	if raw := r.URL.Query().Get("n"); raw != "" {
		v, err := strconv.Atoi(raw)
		if err != nil || v < config.MinCPUIterations || v > config.MaxCPUIterations {
			return http.StatusBadRequest, errorBody(fmt.Sprintf("n must be an integer in %d..%d", config.MinCPUIterations, config.MaxCPUIterations))
		}
		n = v
	}
	cpuwork.JSONEncode(n, 10)
	return http.StatusOK, struct {
		Hostname   string `json:"hostname"`
		Iterations int    `json:"iterations"`
	}{s.hostname, n}
}

func (s *server) products(r *http.Request) (int, any) {
	st, status, body := s.store()
	if st == nil {
		return status, body
	}
	products, err := st.Products(r.Context())
	if err != nil {
		return http.StatusInternalServerError, errorBody("products: " + err.Error())
	}
	return http.StatusOK, products
}

func (s *server) activity(r *http.Request) (int, any) {
	st, status, body := s.store()
	if st == nil {
		return status, body
	}
	id, err := st.InsertActivity(r.Context())
	if err != nil {
		return http.StatusInternalServerError, errorBody("activity: " + err.Error())
	}
	return http.StatusCreated, map[string]string{"id": id}
}

// key answers the hot key's value as text/plain, byte for byte, like experiment 7's other
// servers; errors are JSON like the other endpoints'.
func (s *server) key(r *http.Request) (int, any) {
	if s.cfg.RedisAddr == "" {
		return http.StatusServiceUnavailable, errorBody("no Redis configured (TESTBED_REDIS_ADDR is empty)")
	}
	kr, ok := s.Key.Get()
	if !ok {
		return http.StatusServiceUnavailable, errorBody("redis not ready")
	}
	v, err := kr.Get(r.Context())
	switch {
	case errors.Is(err, rediskey.ErrNotFound):
		return http.StatusNotFound, errorBody(fmt.Sprintf("key %q not found in redis at %s", s.cfg.RedisKey, s.cfg.RedisAddr))
	case err != nil:
		return http.StatusBadGateway, errorBody(err.Error())
	}
	return http.StatusOK, text(v)
}

// store returns the connected store, or the answer to give without one.
func (s *server) store() (store.Store, int, any) {
	if s.cfg.Storage == config.StorageNone {
		return nil, http.StatusBadRequest, errorBody("no storage configured (TESTBED_STORAGE=none)")
	}
	st, ok := s.Store.Get()
	if !ok {
		return nil, http.StatusServiceUnavailable, errorBody(s.cfg.Storage + " not ready")
	}
	return st, 0, nil
}

// events is the logs role's sink for the service's events.
func (s *server) events(r *http.Request) (int, any) {
	var ev event
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&ev); err != nil {
		s.Metrics.ConsumeErrors.Add(1)
		return http.StatusBadRequest, errorBody("body: " + err.Error())
	}
	cpuwork.JSONEncode(s.cfg.DownstreamCPUIterations, 50)
	s.Metrics.Consumed.Add(1)
	return http.StatusOK, map[string]bool{"ok": true}
}

type event struct {
	Payload string `json:"payload"`
}

// NewEvent returns the event a work request hands downstream.
func NewEvent() []byte {
	b, err := json.Marshal(event{Payload: cpuwork.RandomString(100)})
	if err != nil {
		panic(err) // a string field always encodes
	}
	return b
}

// handOff sends the request's event downstream; it returns the answer to give instead
// of the work's own when that fails.
func (s *server) handOff(ctx context.Context) (int, any) {
	mode := s.downstreamMode()
	if mode == config.DownstreamNone {
		return 0, nil
	}
	sender, ok := s.Sender.Get()
	if !ok {
		return http.StatusServiceUnavailable, errorBody("downstream (" + mode + ") not ready")
	}
	if err := sender.Send(ctx, NewEvent(), s.sent); err != nil {
		return http.StatusBadGateway, errorBody("downstream: " + err.Error())
	}
	return 0, nil
}

// sent counts one event's outcome.
func (s *server) sent(err error) {
	if err != nil {
		s.Metrics.SendErrors.Add(1)
	} else {
		s.Metrics.Sent.Add(1)
	}
}

func errorBody(msg string) map[string]string { return map[string]string{"error": msg} }

// writeJSON writes body with status. A failed write means the client went away.
func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
