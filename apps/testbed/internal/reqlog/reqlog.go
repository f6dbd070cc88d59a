// Package reqlog writes one line per work request to a file, either synchronously
// (blocking: write + fsync per line) or through a bounded buffer flushed in the background.
package reqlog

import (
	"fmt"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"scalelab/testbed/internal/config"
)

// Async buffer tuning.
const (
	flushEvery = 100 * time.Millisecond
	flushAt    = 64 << 10 // buffered bytes that trigger an early flush
	maxBuffer  = 1 << 20  // buffered bytes beyond which lines are dropped
)

// Stats counts lines that reached the file, flushes (write + fsync) and lines lost,
// either because the async buffer was full or because writing failed.
type Stats struct {
	Lines   int64 `json:"lines"`
	Flushes int64 `json:"flushes"`
	Dropped int64 `json:"dropped"`
}

// Logger takes the log line of each work request.
type Logger interface {
	Log(line []byte)
	Stats() Stats
	Close() error
}

// Discard is the logger of mode none.
var Discard Logger = nop{}

// Open returns the logger of mode (config.Logging*) writing to path; every flush
// also pays flushCost, a simulated slow disk or remote sink.
func Open(mode, path string, flushCost time.Duration) (Logger, error) {
	switch mode {
	case config.LoggingNone:
		return Discard, nil
	case config.LoggingBlocking, config.LoggingAsync:
	default:
		return nil, fmt.Errorf("unknown logging mode %q", mode)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	w := &writer{f: f, cost: flushCost}
	if mode == config.LoggingBlocking {
		return &blocking{writer: w}, nil
	}
	a := &async{writer: w, kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go a.run()
	return a, nil
}

type nop struct{}

func (nop) Log([]byte)   {}
func (nop) Stats() Stats { return Stats{} }
func (nop) Close() error { return nil }

// writer is the file plus the counters shared by both modes.
type writer struct {
	mu   sync.Mutex // serializes write + fsync only, never the simulated cost
	f    *os.File
	cost time.Duration

	lines, flushes, dropped atomic.Int64
	warned                  atomic.Bool
}

// flush writes b, which holds n lines, and fsyncs.
func (w *writer) flush(b []byte, n int) {
	w.mu.Lock()
	_, err := w.f.Write(b)
	if err == nil {
		err = w.f.Sync()
	}
	w.mu.Unlock()
	w.flushes.Add(1)
	if err != nil {
		w.dropped.Add(int64(n))
		if !w.warned.Swap(true) {
			log.Printf("request log: %v (lines are counted as dropped from now on)", err)
		}
	} else {
		w.lines.Add(int64(n))
	}
}

func (w *writer) Stats() Stats {
	return Stats{Lines: w.lines.Load(), Flushes: w.flushes.Load(), Dropped: w.dropped.Load()}
}

// blocking makes every caller write, fsync and pay the flush cost itself.
type blocking struct{ *writer }

func (b *blocking) Log(line []byte) {
	b.flush(line, 1)
	time.Sleep(b.cost)
}

func (b *blocking) Close() error { return b.f.Close() }

// async appends lines to a bounded buffer that run flushes every flushEvery or once
// it holds flushAt bytes. Callers never wait for a flush.
type async struct {
	*writer

	bufMu   sync.Mutex
	buf     []byte
	pending int    // lines in buf
	spare   []byte // the other buffer, owned by run

	kick, stop, stopped chan struct{}
}

func (a *async) Log(line []byte) {
	a.bufMu.Lock()
	if len(a.buf)+len(line) > maxBuffer {
		a.bufMu.Unlock()
		a.dropped.Add(1)
		return
	}
	a.buf = append(a.buf, line...)
	a.pending++
	full := len(a.buf) >= flushAt
	a.bufMu.Unlock()
	if full {
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
}

func (a *async) run() {
	defer close(a.stopped)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-a.kick:
		case <-a.stop:
			a.flushBuffered()
			return
		}
		if a.flushBuffered() && a.cost > 0 {
			select {
			case <-time.After(a.cost):
			case <-a.stop:
				a.flushBuffered()
				return
			}
		}
	}
}

// flushBuffered swaps the buffers and writes out the full one; it reports whether
// there was anything to write.
func (a *async) flushBuffered() bool {
	a.bufMu.Lock()
	b, n := a.buf, a.pending
	a.buf, a.pending = a.spare[:0], 0
	a.bufMu.Unlock()
	if n > 0 {
		a.flush(b, n)
	}
	a.spare = b
	return n > 0
}

// Close flushes what is buffered (without the simulated cost) and closes the file.
func (a *async) Close() error {
	close(a.stop)
	<-a.stopped
	return a.f.Close()
}
