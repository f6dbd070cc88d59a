package server

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// workFunc does a work request's own work and returns its answer: a text body, or anything
// else as JSON.
type workFunc func(r *http.Request) (status int, body any)

// text is a work answer written as text/plain, as it is.
type text []byte

// request is what the work path logs of a request, HTTP or gRPC.
type request struct {
	method, path, remote string
}

// work wraps fn as an HTTP work request (see doWork).
func (s *server) work(fn workFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req := request{method: r.Method, path: r.URL.Path, remote: r.RemoteAddr}
		status, body := s.doWork(r.Context(), req, func() (int, any) { return fn(r) })
		if t, ok := body.(text); ok {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			_, _ = w.Write(t) // a failed write means the client went away
			return
		}
		writeJSON(w, status, body)
	}
}

// doWork counts a work request and waits for a pool worker (or is turned away when the
// queue is full); while holding the worker it runs fn, writes the request's log line and
// hands its event downstream. It returns the answer once the worker is freed.
func (s *server) doWork(ctx context.Context, req request, fn func() (int, any)) (int, any) {
	s.Metrics.Requests.Add(1)
	if err := s.Pool.Acquire(ctx); err != nil {
		// pool.ErrQueueFull, or the client went away while waiting and nobody reads this.
		return http.StatusServiceUnavailable, errorBody(err.Error())
	}
	defer s.Pool.Release()
	start := time.Now()
	status, body := fn()
	s.Log.Log(logLine(start, s.hostname, req, status))
	if status < 300 {
		if st, b := s.handOff(ctx); st != 0 {
			return st, b
		}
	}
	return status, body
}

// logLine is a request log line of about 100 bytes. Only routed paths get here, so
// the path is one of a few fixed strings.
func logLine(start time.Time, hostname string, req request, status int) []byte {
	return fmt.Appendf(nil, "%s host=%s method=%s path=%s status=%d duration_us=%d remote=%s\n",
		start.UTC().Format(time.RFC3339Nano), hostname, req.method, req.path, status,
		time.Since(start).Microseconds(), req.remote)
}
