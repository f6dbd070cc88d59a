package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"scalelab/testbed/internal/config"
)

const host = "sut-1"

func do(t *testing.T, method, target string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	h := New(config.Config{Port: 8080, CPUIterations: 7}, host)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s %s: body %q is not JSON: %v", method, target, rec.Body.String(), err)
	}
	return rec, body
}

func TestEndpoints(t *testing.T) {
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
		rec, body := do(t, http.MethodGet, tt.target)
		if rec.Code != tt.status {
			t.Errorf("GET %s: status %d, want %d", tt.target, rec.Code, tt.status)
		}
		for k, v := range tt.want {
			if body[k] != v {
				t.Errorf("GET %s: %s = %v, want %v", tt.target, k, body[k], v)
			}
		}
	}
}

func TestCPUBounds(t *testing.T) {
	for _, n := range []string{"0", "-1", "100001", "abc", "1.5"} {
		rec, body := do(t, http.MethodGet, "/cpu?n="+n)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("n=%s: status %d, want 400", n, rec.Code)
		}
		if body["error"] == nil {
			t.Errorf("n=%s: no error message in %v", n, body)
		}
	}
}

func TestBackendHeaderOnEveryResponse(t *testing.T) {
	for _, req := range []struct{ method, target string }{
		{"GET", "/"}, {"GET", "/cpu"}, {"GET", "/health"}, {"GET", "/cpu?n=0"},
		{"GET", "/nope"}, {"POST", "/cpu"}, {"GET", "/hostname/extra"},
	} {
		rec, _ := do(t, req.method, req.target)
		if got := rec.Header().Get("X-Backend"); got != host {
			t.Errorf("%s %s (status %d): X-Backend = %q, want %q", req.method, req.target, rec.Code, got, host)
		}
	}
}
