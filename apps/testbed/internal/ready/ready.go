// Package ready tracks the dependencies a process connects to in the background.
package ready

import (
	"context"
	"log"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Set is the names of the dependencies not ready yet.
type Set struct {
	mu      sync.Mutex
	waiting []string
}

// Add marks name as awaited.
func (s *Set) Add(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.waiting, name) {
		s.waiting = append(s.waiting, name)
	}
}

// Done marks name as ready.
func (s *Set) Done(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting = slices.DeleteFunc(s.waiting, func(n string) bool { return n == name })
}

// Waiting returns the dependencies not ready yet, in the order they were added.
func (s *Set) Waiting() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.waiting)
}

// Value holds a dependency once it is connected.
type Value[T any] struct{ p atomic.Pointer[T] }

// Set publishes v.
func (v *Value[T]) Set(x T) { v.p.Store(&x) }

// Get returns the published value, if any.
func (v *Value[T]) Get() (T, bool) {
	if p := v.p.Load(); p != nil {
		return *p, true
	}
	var zero T
	return zero, false
}

// Backoff bounds of Retry.
var (
	FirstBackoff = 500 * time.Millisecond
	MaxBackoff   = 5 * time.Second
)

// attemptTimeout bounds one attempt so that a dependency that accepts connections but
// never answers does not hold up the retries.
const attemptTimeout = 15 * time.Second

// Retry calls attempt until it succeeds or ctx ends, backing off between failures.
func Retry[T any](ctx context.Context, name string, attempt func(context.Context) (T, error)) (T, error) {
	return RetryUpTo(ctx, name, MaxBackoff, attempt)
}

// RetryUpTo is Retry with the backoff capped at maxBackoff (at most MaxBackoff).
func RetryUpTo[T any](ctx context.Context, name string, maxBackoff time.Duration, attempt func(context.Context) (T, error)) (T, error) {
	maxBackoff = min(maxBackoff, MaxBackoff)
	backoff := min(FirstBackoff, maxBackoff)
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		v, err := attempt(actx)
		cancel()
		if err == nil {
			log.Printf("%s ready", name)
			return v, nil
		}
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
		log.Printf("%s not ready, retrying in %v: %v", name, backoff, err)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return v, ctx.Err()
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
