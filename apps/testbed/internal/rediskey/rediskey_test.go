package rediskey

import (
	"context"
	"errors"
	"log"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"scalelab/testbed/internal/testutil"
)

// value is experiment 7's HOT_VALUE (packages/scenarios/src/hotkey.ts): 100 bytes.
var value = ("scalelab-hot-value-" + strings.Repeat("0123456789abcdef", 6))[:100]

func TestGet(t *testing.T) {
	redis := testutil.StartRedis(t)
	if got := redis.Do(t, "SET", "hot", value); got != "+OK" {
		t.Fatalf("SET: %s", got)
	}
	r := New(redis.Addr, "hot", 0)
	defer r.Close()
	for range 3 {
		got, err := r.Get(context.Background())
		if err != nil || string(got) != value {
			t.Fatalf("Get = %q, %v; want %q", got, err, value)
		}
	}

	missing := New(redis.Addr, "cold", 0)
	defer missing.Close()
	if got, err := missing.Get(context.Background()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key = %q, %v; want ErrNotFound", got, err)
	}

	// A key of another type is Redis's error, not a missing key.
	redis.Do(t, "RPUSH", "list", "x")
	list := New(redis.Addr, "list", 0)
	defer list.Close()
	if _, err := list.Get(context.Background()); err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Fatalf("Get of a list: %v, want Redis's WRONGTYPE error", err)
	}
}

func TestPoolSize(t *testing.T) {
	redis := testutil.StartRedis(t)
	redis.Do(t, "SET", "hot", value)
	const size = 4
	r := New(redis.Addr, "hot", size)
	defer r.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.Get(context.Background()); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Get: %v", err)
	}
	// Every connection the Reader opened is still open (idle); CLIENT LIST also shows Do's own.
	clients := redis.Do(t, "CLIENT", "LIST")
	n := len(regexp.MustCompile(`cmd=get`).FindAllString(clients, -1))
	if n < 1 || n > size {
		t.Fatalf("%d connections ran GET, want 1..%d:\n%s", n, size, clients)
	}
}

func TestRedisDown(t *testing.T) {
	redis := testutil.StartRedis(t)
	redis.Do(t, "SET", "hot", value)
	r := New(redis.Addr, "hot", 0)
	defer r.Close()
	if _, err := r.Get(context.Background()); err != nil {
		t.Fatal(err)
	}
	redis.Stop()
	start := time.Now()
	_, err := r.Get(context.Background())
	if err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("Get with Redis stopped: %v, want an error", err)
	}
	if !strings.Contains(err.Error(), "redis GET hot") {
		t.Errorf("error %q does not say what failed", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the failure took %v", d)
	}
	t.Logf("Redis stopped: %v", err)
}

// A Redis that accepts connections and never answers fails the read after IOTimeout.
func TestStuckRedisTimesOut(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	}()

	r := New(l.Addr().String(), "hot", 0)
	defer r.Close()
	start := time.Now()
	_, err = r.Get(context.Background())
	d := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("Get from a silent server: %v, want a timeout", err)
	}
	if d < IOTimeout/2 || d > IOTimeout+2*time.Second {
		t.Errorf("timed out after %v, want about %v", d, IOTimeout)
	}
	t.Logf("silent server: %v after %v", err, d.Round(time.Millisecond))
}

func TestUnreachableRedisFailsFast(t *testing.T) {
	// A port nothing listens on: the dial is refused at once and not retried.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	_ = l.Close()
	r := New(net.JoinHostPort("127.0.0.1", strconv.Itoa(addr.Port)), "hot", 0)
	defer r.Close()
	start := time.Now()
	if _, err := r.Get(context.Background()); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Get: %v, want connection refused", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("a refused connection took %v to report", d)
	}
}

func TestSparseLogger(t *testing.T) {
	var buf strings.Builder
	log.SetOutput(&buf)
	log.SetFlags(0)
	defer func() { log.SetOutput(os.Stderr); log.SetFlags(log.LstdFlags) }()

	l := &sparseLogger{every: 50 * time.Millisecond}
	for i := range 100 {
		l.Printf(context.Background(), "dial failed %d", i)
	}
	time.Sleep(60 * time.Millisecond)
	l.Printf(context.Background(), "redis: dial failed %d", 100)
	want := "redis: dial failed 0\nredis: dial failed 100 (99 lines left out since the previous one)\n"
	if buf.String() != want {
		t.Fatalf("log:\n%s\nwant:\n%s", buf.String(), want)
	}
}
