// Package server holds the testbed's HTTP handlers.
package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/cpuwork"
)

type server struct {
	cfg      config.Config
	hostname string
}

// New returns the testbed's handler. Every response, errors included, carries
// X-Backend so the load generator can count responses per replica.
func New(cfg config.Config, hostname string) http.Handler {
	s := &server{cfg: cfg, hostname: hostname}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.hostnameHandler)
	mux.HandleFunc("GET /hostname", s.hostnameHandler)
	mux.HandleFunc("GET /cpu", s.cpuHandler)
	mux.HandleFunc("GET /health", s.healthHandler)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found"})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Backend", hostname)
		mux.ServeHTTP(w, r)
	})
}

func (s *server) hostnameHandler(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"hostname": s.hostname})
}

func (s *server) healthHandler(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *server) cpuHandler(w http.ResponseWriter, r *http.Request) {
	n := s.cfg.CPUIterations
	if raw := r.URL.Query().Get("n"); raw != "" {
		v, err := strconv.Atoi(raw)
		if err != nil || v < config.MinCPUIterations || v > config.MaxCPUIterations {
			writeJSON(w, http.StatusBadRequest, map[string]string{
				"error": fmt.Sprintf("n must be an integer in %d..%d", config.MinCPUIterations, config.MaxCPUIterations),
			})
			return
		}
		n = v
	}
	cpuwork.JSONEncode(n)
	writeJSON(w, http.StatusOK, struct {
		Hostname   string `json:"hostname"`
		Iterations int    `json:"iterations"`
	}{s.hostname, n})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
