// Package config reads the testbed's settings from the environment.
package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Bounds of the CPU work per request, for the env default and the ?n= override alike.
const (
	MinCPUIterations = 1
	MaxCPUIterations = 100000
)

// Roles.
const (
	RoleService  = "service"
	RoleLogs     = "logs"
	RoleConsumer = "consumer"
)

// Logging modes.
const (
	LoggingNone     = "none"
	LoggingAsync    = "async"
	LoggingBlocking = "blocking"
)

// Downstream modes.
const (
	DownstreamNone  = "none"
	DownstreamSync  = "sync"
	DownstreamAsync = "async"
)

// Brokers of the async downstream.
const (
	BrokerKafka    = "kafka"
	BrokerRabbitMQ = "rabbitmq"
)

// TESTBED_BACKEND_HEADER: whether every answer names the replica in X-Backend.
const (
	BackendHeaderOn  = "on"
	BackendHeaderOff = "off"
)

// Stores.
const (
	StorageNone      = "none"
	StoragePostgres  = "postgres"
	StorageCassandra = "cassandra"
)

type Config struct {
	Port          int    // TESTBED_PORT
	GRPCPort      int    // TESTBED_GRPC_PORT: the service role's gRPC server; 0 = off
	Threads       int    // TESTBED_THREADS: GOMAXPROCS; 0 keeps Go's default
	CPUIterations int    // TESTBED_CPU_ITERATIONS: default N of GET /cpu
	Role          string // TESTBED_ROLE

	WorkerPool int // TESTBED_WORKER_POOL: work requests processed at once; 0 = unbounded
	QueueLimit int // TESTBED_QUEUE_LIMIT: requests waiting for a worker; 0 = unbounded

	Logging    string // TESTBED_LOGGING
	LogFile    string // TESTBED_LOG_FILE
	LogFlushMS int    // TESTBED_LOG_FLUSH_MS: simulated cost of each flush

	Downstream              string   // TESTBED_DOWNSTREAM
	DownstreamCPUIterations int      // TESTBED_DOWNSTREAM_CPU_ITERATIONS: work per event in logs/consumer
	LogsURL                 string   // TESTBED_LOGS_URL
	KafkaBrokers            []string // TESTBED_KAFKA_BROKERS: comma-separated host:port
	KafkaTopic              string   // TESTBED_KAFKA_TOPIC
	KafkaPartitions         int      // TESTBED_KAFKA_PARTITIONS
	KafkaGroup              string   // TESTBED_KAFKA_GROUP
	Broker                  string   // TESTBED_BROKER: the async downstream's broker (and the consumer role's)
	AMQPURL                 string   // TESTBED_AMQP_URL: amqp://user:pass@host:port/vhost of RabbitMQ
	AMQPQueue               string   // TESTBED_AMQP_QUEUE: the durable queue the events go through
	AMQPPrefetch            int      // TESTBED_AMQP_PREFETCH: unacknowledged deliveries per consumer

	Storage    string // TESTBED_STORAGE
	DBHost     string // TESTBED_DB_HOST
	DBPool     int    // TESTBED_DB_POOL: connections (Postgres) or connections per host (Cassandra)
	DBPassword string // TESTBED_DB_PASSWORD (Postgres)

	RedisAddr string // TESTBED_REDIS_ADDR: host:port of the Redis GET /key reads; empty = no /key
	RedisKey  string // TESTBED_REDIS_KEY: the key GET /key reads

	// TESTBED_BACKEND_HEADER: "on" (every answer carries X-Backend: the host name) or "off", so the
	// testbed stands in for a service that does not name itself (the balancer's header then does).
	BackendHeader string
}

// Defaults is the configuration of an empty environment.
func Defaults() Config {
	return Config{
		Port:                    8080,
		GRPCPort:                9090,
		CPUIterations:           1000,
		Role:                    RoleService,
		Logging:                 LoggingNone,
		LogFile:                 "/tmp/testbed-requests.log",
		Downstream:              DownstreamNone,
		DownstreamCPUIterations: 1000,
		LogsURL:                 "http://logs:8080/events",
		KafkaBrokers:            []string{"kafka:29092"},
		KafkaTopic:              "events",
		KafkaPartitions:         1,
		KafkaGroup:              "consumers",
		Broker:                  BrokerKafka,
		AMQPURL:                 "amqp://lab:lab@rabbitmq:5672/",
		AMQPQueue:               "events",
		AMQPPrefetch:            100,
		Storage:                 StorageNone,
		DBHost:                  "db",
		DBPool:                  10,
		DBPassword:              "lab",
		RedisKey:                "hot",
		BackendHeader:           BackendHeaderOn,
	}
}

var (
	topicRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,249}$`)
	hostRE  = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,253}$`)
	// queueRE is a subset of AMQP's queue names (at most 255 bytes) that is safe in logs.
	queueRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,255}$`)
	// redisKeyRE keeps the key printable and short: it appears in answers and logs.
	redisKeyRE = regexp.MustCompile(`^[A-Za-z0-9:_-]{1,64}$`)
)

// Load reads the configuration through getenv (os.Getenv in production).
func Load(getenv func(string) string) (Config, error) {
	cfg := Defaults()
	ints := []struct {
		name     string
		dst      *int
		min, max int
	}{
		{"TESTBED_PORT", &cfg.Port, 1, 65535},
		{"TESTBED_GRPC_PORT", &cfg.GRPCPort, 0, 65535},
		{"TESTBED_THREADS", &cfg.Threads, 1, 1024},
		{"TESTBED_CPU_ITERATIONS", &cfg.CPUIterations, MinCPUIterations, MaxCPUIterations},
		{"TESTBED_WORKER_POOL", &cfg.WorkerPool, 0, 10000},
		{"TESTBED_QUEUE_LIMIT", &cfg.QueueLimit, 0, 100000},
		{"TESTBED_LOG_FLUSH_MS", &cfg.LogFlushMS, 0, 10000},
		{"TESTBED_DOWNSTREAM_CPU_ITERATIONS", &cfg.DownstreamCPUIterations, MinCPUIterations, MaxCPUIterations},
		{"TESTBED_KAFKA_PARTITIONS", &cfg.KafkaPartitions, 1, 64},
		{"TESTBED_AMQP_PREFETCH", &cfg.AMQPPrefetch, 1, 65535},
		{"TESTBED_DB_POOL", &cfg.DBPool, 1, 1000},
	}
	for _, f := range ints {
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
	if cfg.GRPCPort == cfg.Port {
		return Config{}, fmt.Errorf("TESTBED_GRPC_PORT=%d: the HTTP server has that port (TESTBED_PORT); want another, or 0 for no gRPC", cfg.GRPCPort)
	}

	enums := []struct {
		name    string
		dst     *string
		allowed []string
	}{
		{"TESTBED_ROLE", &cfg.Role, []string{RoleService, RoleLogs, RoleConsumer}},
		{"TESTBED_LOGGING", &cfg.Logging, []string{LoggingNone, LoggingAsync, LoggingBlocking}},
		{"TESTBED_DOWNSTREAM", &cfg.Downstream, []string{DownstreamNone, DownstreamSync, DownstreamAsync}},
		{"TESTBED_BROKER", &cfg.Broker, []string{BrokerKafka, BrokerRabbitMQ}},
		{"TESTBED_STORAGE", &cfg.Storage, []string{StorageNone, StoragePostgres, StorageCassandra}},
		{"TESTBED_BACKEND_HEADER", &cfg.BackendHeader, []string{BackendHeaderOn, BackendHeaderOff}},
	}
	for _, f := range enums {
		raw := getenv(f.name)
		if raw == "" {
			continue
		}
		if !slices.Contains(f.allowed, raw) {
			return Config{}, fmt.Errorf("%s=%q: want one of %s", f.name, raw, strings.Join(f.allowed, ", "))
		}
		*f.dst = raw
	}

	strs := []struct {
		name  string
		dst   *string
		check func(string) error
	}{
		{"TESTBED_LOG_FILE", &cfg.LogFile, nil},
		{"TESTBED_LOGS_URL", &cfg.LogsURL, checkHTTPURL},
		{"TESTBED_KAFKA_TOPIC", &cfg.KafkaTopic, matches(topicRE, "a Kafka topic name ([A-Za-z0-9._-], at most 249 characters)")},
		{"TESTBED_KAFKA_GROUP", &cfg.KafkaGroup, nil},
		{"TESTBED_AMQP_URL", &cfg.AMQPURL, checkAMQPURL},
		{"TESTBED_AMQP_QUEUE", &cfg.AMQPQueue, checkQueue},
		{"TESTBED_DB_HOST", &cfg.DBHost, matches(hostRE, "a host name or IP address")},
		{"TESTBED_DB_PASSWORD", &cfg.DBPassword, nil},
		{"TESTBED_REDIS_ADDR", &cfg.RedisAddr, checkHostPort},
		{"TESTBED_REDIS_KEY", &cfg.RedisKey, matches(redisKeyRE, "a Redis key of 1 to 64 characters of [A-Za-z0-9:_-]")},
	}
	for _, f := range strs {
		raw := getenv(f.name)
		if raw == "" {
			continue
		}
		if f.check != nil {
			if err := f.check(raw); err != nil {
				return Config{}, fmt.Errorf("%s=%q: %w", f.name, raw, err)
			}
		}
		*f.dst = raw
	}

	if raw := getenv("TESTBED_KAFKA_BROKERS"); raw != "" {
		brokers, err := parseBrokers(raw)
		if err != nil {
			return Config{}, fmt.Errorf("TESTBED_KAFKA_BROKERS=%q: %w", raw, err)
		}
		cfg.KafkaBrokers = brokers
	}
	return cfg, nil
}

func matches(re *regexp.Regexp, what string) func(string) error {
	return func(s string) error {
		if !re.MatchString(s) {
			return fmt.Errorf("want %s", what)
		}
		return nil
	}
}

func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an absolute http(s) URL")
	}
	return nil
}

func checkAMQPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "amqp" && u.Scheme != "amqps") || u.Hostname() == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("want an amqp(s)://user:password@host:port/vhost URL")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("want an amqp(s)://user:password@host:port/vhost URL with a port in 1..65535")
		}
	}
	return nil
}

// checkQueue refuses names RabbitMQ reserves (amq.*) and characters beyond [A-Za-z0-9._:-].
func checkQueue(s string) error {
	if !queueRE.MatchString(s) || strings.HasPrefix(s, "amq.") {
		return fmt.Errorf("want a queue name of 1 to 255 characters of [A-Za-z0-9._:-], not starting with amq.")
	}
	return nil
}

func parseBrokers(raw string) ([]string, error) {
	var brokers []string
	for _, b := range strings.Split(raw, ",") {
		b = strings.TrimSpace(b)
		if checkHostPort(b) != nil {
			return nil, fmt.Errorf("want comma-separated host:port pairs")
		}
		brokers = append(brokers, b)
	}
	return brokers, nil
}

// checkHostPort accepts host:port with a port in 1..65535.
func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 || !hostRE.MatchString(host) {
		return fmt.Errorf("want host:port with a port in 1..65535")
	}
	return nil
}
