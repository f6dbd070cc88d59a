// Package config reads the testbed's settings from the environment.
package config

import (
	"fmt"
	"strconv"
)

// Bounds of the CPU work per request, for the env default and the ?n= override alike.
const (
	MinCPUIterations = 1
	MaxCPUIterations = 100000
)

type Config struct {
	Port          int // TESTBED_PORT
	Threads       int // TESTBED_THREADS: GOMAXPROCS; 0 keeps Go's default
	CPUIterations int // TESTBED_CPU_ITERATIONS: default N of GET /cpu
}

// Load reads the configuration through getenv (os.Getenv in production).
func Load(getenv func(string) string) (Config, error) {
	cfg := Config{Port: 8080, CPUIterations: 1000}
	fields := []struct {
		name     string
		dst      *int
		min, max int
	}{
		{"TESTBED_PORT", &cfg.Port, 1, 65535},
		{"TESTBED_THREADS", &cfg.Threads, 1, 1024},
		{"TESTBED_CPU_ITERATIONS", &cfg.CPUIterations, MinCPUIterations, MaxCPUIterations},
	}
	for _, f := range fields {
		raw := getenv(f.name)
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < f.min || n > f.max {
			return Config{}, fmt.Errorf("%s=%q: want an integer in %d..%d", f.name, raw, f.min, f.max)
		}
		*f.dst = n
	}
	return cfg, nil
}
