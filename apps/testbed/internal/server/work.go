package server

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"scalelab/testbed/internal/pool"
)

// workFunc does a work request's own work and returns its answer.
type workFunc func(r *http.Request) (status int, body any)

// work wraps fn as a work request: it waits for a pool worker (or is turned away when
// the queue is full), and while holding the worker it runs fn, writes the request's log
// line and hands its event downstream. The answer is written after the worker is freed.
func (s *server) work(fn workFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.Metrics.Requests.Add(1)
		if err := s.Pool.Acquire(r.Context()); err != nil {
			if errors.Is(err, pool.ErrQueueFull) {
				writeJSON(w, http.StatusServiceUnavailable, errorBody("queue full"))
				return
			}
			// The client went away while waiting; nobody reads this.
			writeJSON(w, http.StatusServiceUnavailable, errorBody(err.Error()))
			return
		}
		status, body := s.runWork(fn, r)
		writeJSON(w, status, body)
	}
}

func (s *server) runWork(fn workFunc, r *http.Request) (int, any) {
	defer s.Pool.Release()
	start := time.Now()
	status, body := fn(r)
	s.Log.Log(logLine(start, s.hostname, r, status))
	if status < 300 {
		if st, b := s.handOff(r.Context()); st != 0 {
			return st, b
		}
	}
	return status, body
}

// logLine is a request log line of about 100 bytes. Only routed paths get here, so
// the path is one of a few fixed strings.
func logLine(start time.Time, hostname string, r *http.Request, status int) []byte {
	return fmt.Appendf(nil, "%s host=%s method=%s path=%s status=%d duration_us=%d remote=%s\n",
		start.UTC().Format(time.RFC3339Nano), hostname, r.Method, r.URL.Path, status,
		time.Since(start).Microseconds(), r.RemoteAddr)
}
