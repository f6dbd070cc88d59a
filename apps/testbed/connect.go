package main

import (
	"context"
	"log"
	"sync"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/cpuwork"
	"scalelab/testbed/internal/downstream"
	"scalelab/testbed/internal/kafka"
	"scalelab/testbed/internal/rabbitmq"
	"scalelab/testbed/internal/ready"
	"scalelab/testbed/internal/rediskey"
	"scalelab/testbed/internal/server"
	"scalelab/testbed/internal/store"
)

// connect connects in the background to what cfg.Role uses, keeping each dependency in
// d.Ready until it answers. The returned function waits for the background work (cancel
// ctx first) and closes the connections.
func connect(ctx context.Context, cfg config.Config, d server.Deps) (closeAll func()) {
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		closers []func()
	)
	onClose := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		closers = append(closers, f)
	}
	background := func(name string, fn func()) {
		d.Ready.Add(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn()
		}()
	}

	switch cfg.Role {
	case config.RoleService:
		// Redis is dialled on the first GET /key and never awaited: /health does not depend
		// on it, and /key answers 502 while it is down. One connection per worker of the
		// pool at most; an unbounded pool keeps go-redis's default (10 per GOMAXPROCS).
		if cfg.RedisAddr != "" {
			kr := rediskey.New(cfg.RedisAddr, cfg.RedisKey, cfg.WorkerPool)
			onClose(kr.Close)
			d.Key.Set(kr)
		}
		if cfg.Storage != config.StorageNone {
			background(cfg.Storage, func() {
				st, err := ready.Retry(ctx, cfg.Storage, func(ctx context.Context) (store.Store, error) {
					return store.Open(ctx, cfg)
				})
				if err != nil {
					return
				}
				onClose(st.Close)
				d.Store.Set(st)
				d.Ready.Done(cfg.Storage)
			})
		}
		switch cfg.Downstream {
		case config.DownstreamSync:
			h := downstream.NewHTTP(cfg.LogsURL)
			onClose(h.Close)
			d.Sender.Set(h)
		case config.DownstreamAsync:
			if cfg.Broker == config.BrokerRabbitMQ {
				publishToRabbitMQ(ctx, cfg, d, background, onClose)
				break
			}
			background("kafka", func() {
				p, err := ready.Retry(ctx, "kafka", func(ctx context.Context) (*kafka.Producer, error) {
					if err := kafka.EnsureTopic(ctx, cfg.KafkaBrokers, cfg.KafkaTopic, cfg.KafkaPartitions); err != nil {
						return nil, err
					}
					return kafka.NewProducer(cfg.KafkaBrokers, cfg.KafkaTopic)
				})
				if err != nil {
					return
				}
				onClose(p.Close)
				d.Sender.Set(p)
				d.Ready.Done("kafka")
			})
		}

	case config.RoleConsumer:
		if cfg.Broker == config.BrokerRabbitMQ {
			consumeFromRabbitMQ(ctx, cfg, d, background)
			break
		}
		background("kafka", func() {
			c, err := ready.Retry(ctx, "kafka", func(ctx context.Context) (*kafka.Consumer, error) {
				if err := kafka.EnsureTopic(ctx, cfg.KafkaBrokers, cfg.KafkaTopic, cfg.KafkaPartitions); err != nil {
					return nil, err
				}
				return kafka.NewConsumer(cfg.KafkaBrokers, cfg.KafkaTopic, cfg.KafkaGroup, func() {
					log.Printf("kafka: joined group %s", cfg.KafkaGroup)
					d.Ready.Done("kafka")
				})
			})
			if err != nil {
				return
			}
			onClose(c.Close)
			var firstErr sync.Once
			c.Run(ctx,
				func([]byte) {
					cpuwork.JSONEncode(cfg.DownstreamCPUIterations, 50)
					d.Metrics.Consumed.Add(1)
				},
				func(err error) {
					d.Metrics.ConsumeErrors.Add(1)
					firstErr.Do(func() { log.Printf("kafka: fetch error (counted in consumeErrors from now on): %v", err) })
				})
		})
	}

	return func() {
		wg.Wait()
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
}

// publishToRabbitMQ makes the service's sender a RabbitMQ publisher, ready (in d.Ready and
// d.Sender) once it first connected and declared the queue. It reconnects after a lost
// connection; events sent meanwhile fail at once.
func publishToRabbitMQ(ctx context.Context, cfg config.Config, d server.Deps, background func(string, func()), onClose func(func())) {
	p := rabbitmq.NewPublisher(cfg.AMQPURL, cfg.AMQPQueue)
	onClose(p.Close)
	var first sync.Once
	background("rabbitmq", func() {
		p.Run(ctx, func() {
			first.Do(func() {
				d.Sender.Set(p)
				d.Ready.Done("rabbitmq")
			})
		})
	})
}

// consumeFromRabbitMQ consumes the queue, doing the downstream work per event; ready once it
// first connected, declared the queue and started consuming.
func consumeFromRabbitMQ(ctx context.Context, cfg config.Config, d server.Deps, background func(string, func())) {
	c := rabbitmq.NewConsumer(cfg.AMQPURL, cfg.AMQPQueue, cfg.AMQPPrefetch)
	var first, firstErr sync.Once
	background("rabbitmq", func() {
		c.Run(ctx,
			func() {
				first.Do(func() {
					log.Printf("rabbitmq: consuming %s (prefetch %d)", cfg.AMQPQueue, cfg.AMQPPrefetch)
					d.Ready.Done("rabbitmq")
				})
			},
			func([]byte) {
				cpuwork.JSONEncode(cfg.DownstreamCPUIterations, 50)
				d.Metrics.Consumed.Add(1)
			},
			func(err error) {
				d.Metrics.ConsumeErrors.Add(1)
				firstErr.Do(func() { log.Printf("rabbitmq: consume error (counted in consumeErrors from now on): %v", err) })
			})
	})
}
