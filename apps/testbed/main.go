// Command testbed is the service under test of Scalelab experiments.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/pool"
	"scalelab/testbed/internal/ready"
	"scalelab/testbed/internal/reqlog"
	"scalelab/testbed/internal/server"
	"scalelab/testbed/internal/store"
)

func main() {
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbed:", err)
		os.Exit(2)
	}
	if len(os.Args) > 1 && os.Args[1] == "healthcheck" {
		os.Exit(healthcheck(cfg.Port))
	}
	if err := serve(cfg); err != nil {
		log.Fatal(err)
	}
}

func serve(cfg config.Config) error {
	if cfg.Threads > 0 {
		runtime.GOMAXPROCS(cfg.Threads)
	}
	hostname, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("hostname: %w", err)
	}
	logger, err := reqlog.Open(cfg.Logging, cfg.LogFile, time.Duration(cfg.LogFlushMS)*time.Millisecond)
	if err != nil {
		return err
	}
	defer logger.Close()

	// Only the service role has work to serve over gRPC, as over HTTP.
	grpcAddr := "off"
	var grpcLis net.Listener
	if cfg.GRPCPort != 0 && cfg.Role == config.RoleService {
		grpcAddr = ":" + strconv.Itoa(cfg.GRPCPort)
		if grpcLis, err = net.Listen("tcp", grpcAddr); err != nil {
			return fmt.Errorf("grpc: %w", err)
		}
	}

	deps := newDeps(cfg, logger)
	bgCtx, stopBackground := context.WithCancel(context.Background())
	closeDeps := connect(bgCtx, cfg, deps)

	srv := &http.Server{
		Addr:              ":" + strconv.Itoa(cfg.Port),
		Handler:           server.New(cfg, hostname, deps),
		ReadHeaderTimeout: 10 * time.Second,
	}

	var grpcSrv *grpc.Server
	grpcErr := make(chan error, 1)
	if grpcLis != nil {
		grpcSrv = server.NewGRPC(cfg, hostname, deps)
		go func() { grpcErr <- fmt.Errorf("grpc: %w", grpcSrv.Serve(grpcLis)) }()
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	redisKey := "off"
	if cfg.RedisAddr != "" && cfg.Role == config.RoleService {
		redisKey = cfg.RedisKey + "@" + cfg.RedisAddr
	}
	downstream := cfg.Downstream
	if cfg.Downstream == config.DownstreamAsync || cfg.Role == config.RoleConsumer {
		downstream += " via " + cfg.Broker
	}
	log.Printf("testbed %s listening on %s, gRPC %s (GOMAXPROCS=%d, cpu iterations=%d, pool=%d, queue=%d, logging=%s, downstream=%s, storage=%s, redis key=%s)",
		cfg.Role, srv.Addr, grpcAddr, runtime.GOMAXPROCS(0), cfg.CPUIterations, cfg.WorkerPool, cfg.QueueLimit, cfg.Logging, downstream, cfg.Storage, redisKey)

	var serveErr error
	select {
	case serveErr = <-errc:
	case serveErr = <-grpcErr: // Serve returns before a stop only on failure
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		grpcStopped := make(chan struct{})
		go func() { stopGRPC(shutdownCtx, grpcSrv); close(grpcStopped) }()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			serveErr = fmt.Errorf("shutdown: %w", err)
		} else if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			serveErr = err
		}
		<-grpcStopped
	}
	stopBackground()
	closeDeps()
	if serveErr == nil {
		log.Print("testbed stopped")
	}
	return serveErr
}

// stopGRPC lets g's calls in flight finish, like http.Server.Shutdown, and cuts them off
// when ctx ends first. A nil g is nothing to stop.
func stopGRPC(ctx context.Context, g *grpc.Server) {
	if g == nil {
		return
	}
	done := make(chan struct{})
	go func() { g.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		g.Stop()
		<-done
	}
}

func newDeps(cfg config.Config, logger reqlog.Logger) server.Deps {
	return server.Deps{
		Pool:    pool.New(cfg.WorkerPool, cfg.QueueLimit),
		Log:     logger,
		Ready:   &ready.Set{},
		Store:   &ready.Value[store.Store]{},
		Sender:  &ready.Value[server.Sender]{},
		Key:     &ready.Value[server.KeyReader]{},
		Metrics: &server.Metrics{},
	}
}

func healthcheck(port int) int {
	client := http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/health", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "healthcheck: status", resp.StatusCode)
		return 1
	}
	return 0
}
