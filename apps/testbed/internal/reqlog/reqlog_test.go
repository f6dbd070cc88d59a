package reqlog

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"scalelab/testbed/internal/config"
)

const cost = 50 * time.Millisecond

var line = append(bytes.Repeat([]byte("x"), 99), '\n')

func open(t *testing.T, mode string, cost time.Duration) (Logger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "requests.log")
	l, err := Open(mode, path, cost)
	if err != nil {
		t.Fatal(err)
	}
	return l, path
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

func TestNoneWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.log")
	l, err := Open(config.LoggingNone, path, cost)
	if err != nil {
		t.Fatal(err)
	}
	l.Log(line)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("log file created: %v", err)
	}
	if l.Stats() != (Stats{}) {
		t.Fatalf("stats = %+v", l.Stats())
	}
}

func TestBlockingWritesBeforeReturningAndPaysTheCost(t *testing.T) {
	l, path := open(t, config.LoggingBlocking, cost)
	defer l.Close()
	start := time.Now()
	l.Log(line)
	if d := time.Since(start); d < cost {
		t.Fatalf("Log returned after %v, want >= %v", d, cost)
	}
	if n := countLines(t, path); n != 1 {
		t.Fatalf("file has %d lines right after Log, want 1", n)
	}
	if got := l.Stats(); got != (Stats{Lines: 1, Flushes: 1}) {
		t.Fatalf("stats = %+v", got)
	}
}

// The simulated cost must be paid in parallel, not under the file's mutex.
func TestBlockingCostIsNotSerialized(t *testing.T) {
	l, path := open(t, config.LoggingBlocking, cost)
	defer l.Close()
	const n = 10
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); l.Log(line) }()
	}
	wg.Wait()
	if d := time.Since(start); d >= n*cost/2 {
		t.Fatalf("%d concurrent Logs took %v: the cost is serialized", n, d)
	}
	if got := countLines(t, path); got != n {
		t.Fatalf("file has %d lines, want %d", got, n)
	}
}

func TestAsyncDoesNotWaitAndFlushesInBackground(t *testing.T) {
	l, path := open(t, config.LoggingAsync, cost)
	start := time.Now()
	for range 100 {
		l.Log(line)
	}
	if d := time.Since(start); d >= cost {
		t.Fatalf("100 async Logs took %v, want well under the %v flush cost", d, cost)
	}
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().Lines < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("background flush did not happen: %+v", l.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := countLines(t, path); n != 100 {
		t.Fatalf("file has %d lines, want 100", n)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Lines != 100 || s.Flushes < 1 || s.Dropped != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestAsyncDropsWhenTheBufferIsFull(t *testing.T) {
	l, path := open(t, config.LoggingAsync, time.Hour)
	l.Log(line)
	deadline := time.Now().Add(5 * time.Second)
	for l.Stats().Flushes < 1 { // the flusher now sleeps for an hour
		if time.Now().After(deadline) {
			t.Fatal("no first flush")
		}
		time.Sleep(10 * time.Millisecond)
	}
	fit := maxBuffer / len(line)
	for range fit + 7 {
		l.Log(line)
	}
	if got := l.Stats().Dropped; got != 7 {
		t.Fatalf("dropped = %d, want 7", got)
	}
	if err := l.Close(); err != nil { // must not wait for the hour
		t.Fatal(err)
	}
	if n := countLines(t, path); n != 1+fit {
		t.Fatalf("file has %d lines, want %d", n, 1+fit)
	}
	if got := l.Stats(); got != (Stats{Lines: int64(1 + fit), Flushes: 2, Dropped: 7}) {
		t.Fatalf("stats = %+v", got)
	}
}
