package testutil

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Redis is a redis-server process of one test.
type Redis struct {
	Addr string

	cmd    *exec.Cmd
	exited chan struct{}
	out    *lockedBuffer
	stop   sync.Once
}

// StartRedis runs the host's redis-server on a free loopback port, without persistence, for the
// rest of the test. It fails the test when Redis cannot start: the tests that use it need a
// real Redis and are not skipped without one.
func StartRedis(t *testing.T) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("these tests need a real Redis, and redis-server is not on PATH (%v): install it, e.g. apt-get install -y redis-server", err)
	}
	var last error
	// The port is free when picked but could be taken before Redis binds it: try again then.
	for range 3 {
		r, err := startRedis(bin, t.TempDir())
		if err == nil {
			t.Cleanup(r.Stop)
			return r
		}
		last = err
	}
	t.Fatalf("redis-server did not start: %v", last)
	return nil
}

func startRedis(bin, dir string) (*Redis, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()

	r := &Redis{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), exited: make(chan struct{}), out: &lockedBuffer{}}
	r.cmd = exec.Command(bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	go func() { _ = r.cmd.Wait(); close(r.exited) }()

	deadline := time.Now().Add(10 * time.Second)
	for {
		if reply, err := r.do("PING"); err == nil && reply == "+PONG" {
			return r, nil
		}
		select {
		case <-r.exited:
			return nil, fmt.Errorf("redis-server on port %d exited: %s", port, strings.TrimSpace(r.out.String()))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			r.Stop()
			return nil, fmt.Errorf("redis-server on port %d did not answer PING in 10 s: %s", port, strings.TrimSpace(r.out.String()))
		}
	}
}

// Do sends one command and returns its reply: a bulk string's content, "(nil)" for a missing
// one, or the reply's line otherwise ("+OK", ":1", "-ERR ...").
func (r *Redis) Do(t *testing.T, args ...string) string {
	t.Helper()
	reply, err := r.do(args...)
	if err != nil {
		t.Fatalf("redis %v: %v", args, err)
	}
	return reply
}

func (r *Redis) do(args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", r.Addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if !strings.HasPrefix(line, "$") {
		return line, nil
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 {
		return "(nil)", err
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(br, buf); err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// Stop kills the server and waits for it to exit.
func (r *Redis) Stop() {
	r.stop.Do(func() {
		_ = r.cmd.Process.Kill()
		<-r.exited
	})
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
