package config

import (
	"reflect"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLoadDefaults(t *testing.T) {
	cfg, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Port: 8080, GRPCPort: 9090, Threads: 0, CPUIterations: 1000, Role: "service",
		WorkerPool: 0, QueueLimit: 0,
		Logging: "none", LogFile: "/tmp/testbed-requests.log", LogFlushMS: 0,
		Downstream: "none", DownstreamCPUIterations: 1000, LogsURL: "http://logs:8080/events",
		KafkaBrokers: []string{"kafka:29092"}, KafkaTopic: "events", KafkaPartitions: 1, KafkaGroup: "consumers",
		Broker: "kafka", AMQPURL: "amqp://lab:lab@rabbitmq:5672/", AMQPQueue: "events", AMQPPrefetch: 100,
		Storage: "none", DBHost: "db", DBPool: 10, DBPassword: "lab",
		RedisAddr: "", RedisKey: "hot", BackendHeader: "on",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
}

func TestLoadOverrides(t *testing.T) {
	cfg, err := Load(env(map[string]string{
		"TESTBED_PORT":                      "9000",
		"TESTBED_GRPC_PORT":                 "0",
		"TESTBED_THREADS":                   "1",
		"TESTBED_CPU_ITERATIONS":            "50",
		"TESTBED_ROLE":                      "consumer",
		"TESTBED_WORKER_POOL":               "16",
		"TESTBED_QUEUE_LIMIT":               "100",
		"TESTBED_LOGGING":                   "blocking",
		"TESTBED_LOG_FILE":                  "/var/log/x.log",
		"TESTBED_LOG_FLUSH_MS":              "20",
		"TESTBED_DOWNSTREAM":                "async",
		"TESTBED_DOWNSTREAM_CPU_ITERATIONS": "5",
		"TESTBED_LOGS_URL":                  "https://logs.lab:8443/in",
		"TESTBED_KAFKA_BROKERS":             "k1:9092, k2:9092",
		"TESTBED_KAFKA_TOPIC":               "ev.v1",
		"TESTBED_KAFKA_PARTITIONS":          "8",
		"TESTBED_KAFKA_GROUP":               "g",
		"TESTBED_BROKER":                    "rabbitmq",
		"TESTBED_AMQP_URL":                  "amqps://u:p%40ss@broker.lab:5671/lab",
		"TESTBED_AMQP_QUEUE":                "ev.v1:a_b-c",
		"TESTBED_AMQP_PREFETCH":             "10",
		"TESTBED_STORAGE":                   "cassandra",
		"TESTBED_DB_HOST":                   "10.0.0.5",
		"TESTBED_DB_POOL":                   "4",
		"TESTBED_DB_PASSWORD":               "s3cret@/:",
		"TESTBED_REDIS_ADDR":                "redis:6379",
		"TESTBED_REDIS_KEY":                 "exp7:hot_key-1",
		"TESTBED_BACKEND_HEADER":            "off",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Port: 9000, GRPCPort: 0, Threads: 1, CPUIterations: 50, Role: "consumer",
		WorkerPool: 16, QueueLimit: 100,
		Logging: "blocking", LogFile: "/var/log/x.log", LogFlushMS: 20,
		Downstream: "async", DownstreamCPUIterations: 5, LogsURL: "https://logs.lab:8443/in",
		KafkaBrokers: []string{"k1:9092", "k2:9092"}, KafkaTopic: "ev.v1", KafkaPartitions: 8, KafkaGroup: "g",
		Broker: "rabbitmq", AMQPURL: "amqps://u:p%40ss@broker.lab:5671/lab", AMQPQueue: "ev.v1:a_b-c", AMQPPrefetch: 10,
		Storage: "cassandra", DBHost: "10.0.0.5", DBPool: 4, DBPassword: "s3cret@/:",
		RedisAddr: "redis:6379", RedisKey: "exp7:hot_key-1", BackendHeader: "off",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
}

func TestLoadBounds(t *testing.T) {
	for _, tt := range []struct {
		name          string
		min, max, bad string
	}{
		{"TESTBED_PORT", "1", "65535", "70000"},
		{"TESTBED_GRPC_PORT", "0", "65535", "70000"},
		{"TESTBED_THREADS", "1", "1024", "0"},
		{"TESTBED_CPU_ITERATIONS", "1", "100000", "100001"},
		{"TESTBED_WORKER_POOL", "0", "10000", "10001"},
		{"TESTBED_QUEUE_LIMIT", "0", "100000", "100001"},
		{"TESTBED_LOG_FLUSH_MS", "0", "10000", "10001"},
		{"TESTBED_DOWNSTREAM_CPU_ITERATIONS", "1", "100000", "0"},
		{"TESTBED_KAFKA_PARTITIONS", "1", "64", "65"},
		{"TESTBED_AMQP_PREFETCH", "1", "65535", "0"},
		{"TESTBED_DB_POOL", "1", "1000", "1001"},
	} {
		for _, ok := range []string{tt.min, tt.max} {
			if _, err := Load(env(map[string]string{tt.name: ok})); err != nil {
				t.Errorf("%s=%s: %v", tt.name, ok, err)
			}
		}
		for _, bad := range []string{tt.bad, "-1", "x", "1.5"} {
			_, err := Load(env(map[string]string{tt.name: bad}))
			if err == nil || !strings.Contains(err.Error(), tt.name) || !strings.Contains(err.Error(), tt.min+".."+tt.max) {
				t.Errorf("%s=%s: error %v, want one naming the variable and %s..%s", tt.name, bad, err, tt.min, tt.max)
			}
		}
	}
}

func TestLoadRejectsOnePortForHTTPAndGRPC(t *testing.T) {
	for _, vars := range []map[string]string{
		{"TESTBED_GRPC_PORT": "8080"},
		{"TESTBED_PORT": "9090"},
		{"TESTBED_PORT": "7000", "TESTBED_GRPC_PORT": "7000"},
	} {
		if _, err := Load(env(vars)); err == nil || !strings.Contains(err.Error(), "TESTBED_GRPC_PORT") {
			t.Errorf("%v: error %v, want one naming TESTBED_GRPC_PORT", vars, err)
		}
	}
}

func TestLoadRejectsInvalidStrings(t *testing.T) {
	for _, tt := range []struct{ name, value, wantInMsg string }{
		{"TESTBED_ROLE", "worker", "service, logs, consumer"},
		{"TESTBED_LOGGING", "sync", "none, async, blocking"},
		{"TESTBED_DOWNSTREAM", "kafka", "none, sync, async"},
		{"TESTBED_STORAGE", "mysql", "none, postgres, cassandra"},
		{"TESTBED_BACKEND_HEADER", "no", "on, off"},
		{"TESTBED_LOGS_URL", "logs:8080/events", "URL"},
		{"TESTBED_LOGS_URL", "ftp://logs/events", "URL"},
		{"TESTBED_KAFKA_BROKERS", "kafka", "host:port"},
		{"TESTBED_KAFKA_BROKERS", "kafka:0", "host:port"},
		{"TESTBED_KAFKA_BROKERS", "kafka:29092,", "host:port"},
		{"TESTBED_KAFKA_TOPIC", "a/b", "topic"},
		{"TESTBED_BROKER", "nats", "kafka, rabbitmq"},
		{"TESTBED_AMQP_URL", "http://rabbitmq:5672/", "amqp(s)://"},
		{"TESTBED_AMQP_URL", "rabbitmq:5672", "amqp(s)://"},
		{"TESTBED_AMQP_URL", "amqp:///", "amqp(s)://"},
		{"TESTBED_AMQP_URL", "amqp://rabbitmq:0/", "1..65535"},
		{"TESTBED_AMQP_URL", "amqp://rabbitmq:5672/?heartbeat=1", "amqp(s)://"},
		{"TESTBED_AMQP_QUEUE", "amq.events", "amq."},
		{"TESTBED_AMQP_QUEUE", "a b", "[A-Za-z0-9._:-]"},
		{"TESTBED_AMQP_QUEUE", strings.Repeat("q", 256), "1 to 255"},
		{"TESTBED_DB_HOST", "db;drop", "host"},
		{"TESTBED_REDIS_ADDR", "redis", "host:port"},
		{"TESTBED_REDIS_ADDR", "redis:0", "host:port"},
		{"TESTBED_REDIS_ADDR", "redis:65536", "host:port"},
		{"TESTBED_REDIS_ADDR", "redis:6379,other:6379", "host:port"},
		{"TESTBED_REDIS_ADDR", "redis://redis:6379", "host:port"},
		{"TESTBED_REDIS_KEY", "hot key", "[A-Za-z0-9:_-]"},
		{"TESTBED_REDIS_KEY", "hot\r\nFLUSHALL", "[A-Za-z0-9:_-]"},
		{"TESTBED_REDIS_KEY", "hot.key", "[A-Za-z0-9:_-]"},
		{"TESTBED_REDIS_KEY", strings.Repeat("k", 65), "1 to 64"},
	} {
		_, err := Load(env(map[string]string{tt.name: tt.value}))
		if err == nil || !strings.Contains(err.Error(), tt.name) || !strings.Contains(err.Error(), tt.wantInMsg) {
			t.Errorf("%s=%q: error %v, want one naming the variable and %q", tt.name, tt.value, err, tt.wantInMsg)
		}
	}
}

func TestLoadRedisKeyBounds(t *testing.T) {
	for _, key := range []string{"k", strings.Repeat("k", 64), "A-z_0:9"} {
		cfg, err := Load(env(map[string]string{"TESTBED_REDIS_KEY": key}))
		if err != nil || cfg.RedisKey != key {
			t.Errorf("TESTBED_REDIS_KEY=%q: %+v, %v", key, cfg.RedisKey, err)
		}
	}
	for _, addr := range []string{"redis:6379", "10.0.0.5:1", "[::1]:65535", "localhost:6380"} {
		cfg, err := Load(env(map[string]string{"TESTBED_REDIS_ADDR": addr}))
		if err != nil || cfg.RedisAddr != addr {
			t.Errorf("TESTBED_REDIS_ADDR=%q: %+v, %v", addr, cfg.RedisAddr, err)
		}
	}
}
