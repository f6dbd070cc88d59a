// Package pool bounds how many work requests run at once and how many may wait.
package pool

import (
	"context"
	"errors"
	"sync/atomic"
)

// ErrQueueFull is returned by Acquire when the wait queue is at its limit.
var ErrQueueFull = errors.New("queue full")

// Pool is a counting semaphore with a bounded wait queue and gauges.
type Pool struct {
	size, queueLimit int
	slots            chan struct{} // nil when unbounded

	busy, queued, rejected atomic.Int64
}

// Stats is a snapshot of the gauges (busy, queued) and counters (rejected).
type Stats struct {
	Size     int   `json:"size"`
	Busy     int64 `json:"busy"`
	Queued   int64 `json:"queued"`
	Rejected int64 `json:"rejected"`
}

// New returns a pool of size workers (0 = unbounded) where at most queueLimit callers
// wait for a worker (0 = unbounded; ignored without a bound on workers).
func New(size, queueLimit int) *Pool {
	p := &Pool{size: size, queueLimit: queueLimit}
	if size > 0 {
		p.slots = make(chan struct{}, size)
	}
	return p
}

// Acquire takes a worker, waiting for one if all are busy. It fails with ErrQueueFull
// when the queue is at its limit, or with the context's error. Every nil return must be
// paired with Release.
func (p *Pool) Acquire(ctx context.Context) error {
	if p.slots == nil {
		p.busy.Add(1)
		return nil
	}
	select {
	case p.slots <- struct{}{}:
		p.busy.Add(1)
		return nil
	default:
	}
	if q := p.queued.Add(1); p.queueLimit > 0 && q > int64(p.queueLimit) {
		p.queued.Add(-1)
		p.rejected.Add(1)
		return ErrQueueFull
	}
	defer p.queued.Add(-1)
	select {
	case p.slots <- struct{}{}:
		p.busy.Add(1)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release gives back a worker taken by Acquire.
func (p *Pool) Release() {
	p.busy.Add(-1)
	if p.slots != nil {
		<-p.slots
	}
}

// Stats returns the current gauges and counters.
func (p *Pool) Stats() Stats {
	return Stats{Size: p.size, Busy: p.busy.Load(), Queued: p.queued.Load(), Rejected: p.rejected.Load()}
}
