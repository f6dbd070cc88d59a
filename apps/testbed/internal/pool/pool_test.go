package pool

import (
	"context"
	"errors"
	"sync"
	"testing"

	"scalelab/testbed/internal/testutil"
)

func TestBoundedConcurrencyAndQueue(t *testing.T) {
	const size, queue = 3, 2
	p := New(size, queue)
	release := make(chan struct{})
	var mu sync.Mutex
	running, maxRunning := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, size+queue)
	for range size + queue {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Acquire(context.Background()); err != nil {
				errs <- err
				return
			}
			defer p.Release()
			mu.Lock()
			running++
			maxRunning = max(maxRunning, running)
			mu.Unlock()
			<-release
			mu.Lock()
			running--
			mu.Unlock()
		}()
	}
	testutil.Eventually(t, "3 busy and 2 queued", func() bool {
		s := p.Stats()
		return s.Busy == size && s.Queued == queue
	})

	if err := p.Acquire(context.Background()); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("Acquire beyond the queue limit = %v, want ErrQueueFull", err)
	}
	if got := p.Stats(); got != (Stats{Size: size, Busy: size, Queued: queue, Rejected: 1}) {
		t.Fatalf("stats = %+v", got)
	}

	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("queued caller failed: %v", err)
	}
	if maxRunning != size {
		t.Errorf("at most %d ran at once, want %d", maxRunning, size)
	}
	if got := p.Stats(); got != (Stats{Size: size, Rejected: 1}) {
		t.Fatalf("stats after release = %+v", got)
	}
}

func TestUnboundedQueue(t *testing.T) {
	p := New(1, 0)
	if err := p.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			p.Release()
		}()
	}
	testutil.Eventually(t, "100 queued", func() bool { return p.Stats().Queued == 100 })
	p.Release()
	wg.Wait()
	if got := p.Stats(); got != (Stats{Size: 1}) {
		t.Fatalf("stats = %+v", got)
	}
}

func TestUnboundedPoolCountsInFlight(t *testing.T) {
	p := New(0, 5)
	for range 50 {
		if err := p.Acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Stats(); got != (Stats{Size: 0, Busy: 50}) {
		t.Fatalf("stats = %+v", got)
	}
	for range 50 {
		p.Release()
	}
	if got := p.Stats().Busy; got != 0 {
		t.Fatalf("busy = %d", got)
	}
}

func TestAcquireGivesUpWithContext(t *testing.T) {
	p := New(1, 0)
	if err := p.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Acquire(ctx) }()
	testutil.Eventually(t, "1 queued", func() bool { return p.Stats().Queued == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	if got := p.Stats(); got != (Stats{Size: 1, Busy: 1}) {
		t.Fatalf("stats = %+v", got)
	}
}
