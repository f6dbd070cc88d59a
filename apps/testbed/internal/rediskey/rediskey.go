// Package rediskey reads experiment 7's hot key from Redis for GET /key.
package rediskey

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Timeouts of one read. Redis answers a GET in well under a millisecond on the lab's network,
// so a second means it is gone or stuck: the request fails (502) instead of waiting.
const (
	DialTimeout = time.Second
	IOTimeout   = time.Second
	// PoolTimeout bounds the wait for a free connection when every one is busy.
	PoolTimeout = 2 * time.Second
)

// ErrNotFound is the answer when the key is not in Redis.
var ErrNotFound = errors.New("key not found")

// LogEvery is the least time between two lines of go-redis's own log (failed dials...): with
// Redis down, every request of the load fails, and a line each would flood the container's log.
const LogEvery = 10 * time.Second

func init() { redis.SetLogger(&sparseLogger{every: LogEvery}) }

// sparseLogger writes go-redis's first line, then at most one per `every` with the number of
// lines left out since the previous one.
type sparseLogger struct {
	every time.Duration

	mu      sync.Mutex
	last    time.Time
	dropped int
}

func (l *sparseLogger) Printf(_ context.Context, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.dropped++
		return
	}
	msg := fmt.Sprintf(format, v...)
	if l.dropped > 0 {
		msg += fmt.Sprintf(" (%d lines left out since the previous one)", l.dropped)
	}
	l.last, l.dropped = now, 0
	if !strings.HasPrefix(msg, "redis:") {
		msg = "redis: " + msg
	}
	log.Print(msg)
}

// Reader reads one fixed key.
type Reader struct {
	client *redis.Client
	key    string
}

// New returns a Reader of key at addr (host:port). poolSize is the most connections it keeps
// open at once; 0 takes go-redis's default (10 per GOMAXPROCS). Nothing is dialled before the
// first Get, so a Redis that is not up yet does not hold up the process.
func New(addr, key string, poolSize int) *Reader {
	return &Reader{
		key: key,
		client: redis.NewClient(&redis.Options{
			Addr: addr,
			// RESP2, as lua-resty-redis and redis-rb speak it: no HELLO 3, no push notifications.
			Protocol:                 2,
			DisableIdentity:          true,
			MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
			PoolSize:                 poolSize,
			PoolTimeout:              PoolTimeout,
			DialTimeout:              DialTimeout,
			DialerRetries:            1,
			ReadTimeout:              IOTimeout,
			WriteTimeout:             IOTimeout,
			// A client that went away stops waiting for Redis too.
			ContextTimeoutEnabled: true,
			// A failed read is the request's answer (502), not retried behind the load's back.
			MaxRetries: -1,
		}),
	}
}

// Key is the key Get reads.
func (r *Reader) Key() string { return r.key }

// Get reads the key's value: ErrNotFound if it is not set, or Redis's error.
func (r *Reader) Get(ctx context.Context) ([]byte, error) {
	v, err := r.client.Get(ctx, r.key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redis GET %s: %w", r.key, err)
	}
	return v, nil
}

// Close closes the connections.
func (r *Reader) Close() { _ = r.client.Close() }
