package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/pool"
	"scalelab/testbed/internal/reqlog"
	"scalelab/testbed/internal/testutil"
)

// grpcConn serves NewGRPC(cfg, host, d) on a loopback port and returns a plaintext client of it.
func grpcConn(t *testing.T, cfg config.Config, d Deps) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := NewGRPC(cfg, host, d)
	go func() { _ = g.Serve(lis) }()
	t.Cleanup(g.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// callGet calls Hostname/Get and returns the reply's hostname and the x-backend metadata.
func callGet(t *testing.T, conn *grpc.ClientConn) (string, []string, error) {
	t.Helper()
	var header metadata.MD
	reply := &wrapperspb.StringValue{}
	err := conn.Invoke(context.Background(), grpcGetMethod, &emptypb.Empty{}, reply, grpc.Header(&header))
	return reply.GetValue(), header.Get(backendMetadata), err
}

func TestGRPCHostname(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.log")
	logger, err := reqlog.Open(config.LoggingBlocking, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{Log: logger, Metrics: &Metrics{}}
	conn := grpcConn(t, testConfig(), d)
	for range 2 {
		got, backend, err := callGet(t, conn)
		if err != nil || got != host || len(backend) != 1 || backend[0] != host {
			t.Fatalf("Get: hostname %q, x-backend %v, error %v; want %q in both", got, backend, err, host)
		}
	}
	// The calls count in /stats like GET /hostname.
	if got := field(t, getStats(t, New(testConfig(), host, d)), "requests"); got != float64(2) {
		t.Errorf("stats requests = %v, want 2", got)
	}
	if err := logger.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "host=sut-1 method=POST path=/scalelab.testbed.v1.Hostname/Get status=200 ") {
		t.Errorf("log file:\n%s", b)
	}
}

func TestGRPCQueueFullIsUnavailable(t *testing.T) {
	p := pool.New(1, 1)
	if err := p.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	queued := make(chan error, 1)
	go func() { queued <- p.Acquire(context.Background()) }()
	testutil.Eventually(t, "1 queued", func() bool { return p.Stats().Queued == 1 })

	conn := grpcConn(t, testConfig(), Deps{Pool: p})
	_, backend, err := callGet(t, conn)
	if status.Code(err) != codes.Unavailable || status.Convert(err).Message() != "queue full" {
		t.Fatalf("Get beyond the queue: %v, want UNAVAILABLE queue full", err)
	}
	if len(backend) != 1 || backend[0] != host {
		t.Errorf("x-backend of the rejected call = %v, want [%s]", backend, host)
	}
	if got := p.Stats().Rejected; got != 1 {
		t.Errorf("pool rejected %d, want 1", got)
	}

	p.Release()
	if err := <-queued; err != nil {
		t.Fatal(err)
	}
	p.Release()
	if got, _, err := callGet(t, conn); err != nil || got != host {
		t.Fatalf("Get after the burst: %q %v", got, err)
	}
}

func TestGRPCDownstreamNotReadyIsUnavailable(t *testing.T) {
	cfg := testConfig()
	cfg.Downstream = config.DownstreamAsync
	_, _, err := callGet(t, grpcConn(t, cfg, Deps{}))
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("Get before Kafka is ready: %v, want UNAVAILABLE", err)
	}
}

// hostname.proto is what load generators load: it must name the service the server registers.
func TestHostnameProtoMatchesTheServer(t *testing.T) {
	b, err := os.ReadFile("hostname.proto")
	if err != nil {
		t.Fatal(err)
	}
	pkg := strings.TrimSuffix(grpcService, ".Hostname")
	for _, want := range []string{
		`syntax = "proto3";`,
		"package " + pkg + ";",
		"service Hostname {",
		"rpc Get(GetRequest) returns (GetReply);",
		"message GetRequest {}",
		"string hostname = 1;",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("hostname.proto lacks %q", want)
		}
	}
}
