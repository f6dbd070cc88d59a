// Package kafka creates the events topic, publishes events and consumes them in a group.
package kafka

import (
	"context"
	"errors"
	"log"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// EnsureTopic creates topic with the given number of partitions and replication
// factor 1 unless it exists.
func EnsureTopic(ctx context.Context, brokers []string, topic string, partitions int) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	_, err = adm.CreateTopic(ctx, int32(partitions), 1, nil, topic)
	if err == nil {
		return nil
	}
	if !errors.Is(err, kerr.TopicAlreadyExists) {
		return err
	}
	details, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return err
	}
	if d := details[topic]; d.Err == nil && len(d.Partitions) != partitions {
		log.Printf("kafka: topic %s already exists with %d partitions instead of %d", topic, len(d.Partitions), partitions)
	}
	return nil
}

// Producer publishes events to one topic.
type Producer struct{ cl *kgo.Client }

// NewProducer returns a producer whose sends complete once the partition leader
// has the record.
func NewProducer(brokers []string, topic string) (*Producer, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(), // idempotent writes require acks from all in-sync replicas
		// Every caller waits for its own record: lingering would only add latency, and
		// records arriving while a request is in flight are batched anyway.
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(10*time.Second),
	)
	if err != nil {
		return nil, err
	}
	return &Producer{cl: cl}, nil
}

// Send publishes event and waits for the broker's acknowledgement.
func (p *Producer) Send(ctx context.Context, event []byte) error {
	return p.cl.ProduceSync(ctx, &kgo.Record{Value: event}).FirstErr()
}

// Close flushes nothing (every Send waited) and closes the connections.
func (p *Producer) Close() { p.cl.Close() }

// Consumer reads a topic as a member of a consumer group, committing automatically.
type Consumer struct{ cl *kgo.Client }

// NewConsumer returns a group member that starts from the earliest offset of partitions
// without a committed offset. joined is called once, when the first assignment is
// known (possibly empty, if the group has more members than partitions).
func NewConsumer(brokers []string, topic, group string, joined func()) (*Consumer, error) {
	var once sync.Once
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { once.Do(joined) }),
	)
	if err != nil {
		return nil, err
	}
	return &Consumer{cl: cl}, nil
}

// Run polls until ctx ends. The records of each partition are handled in order, the
// partitions of one poll in parallel.
func (c *Consumer) Run(ctx context.Context, handle func(value []byte), onError func(error)) {
	for {
		fetches := c.cl.PollFetches(ctx)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			return
		}
		fetches.EachError(func(_ string, _ int32, err error) { onError(err) })
		var wg sync.WaitGroup
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			if len(p.Records) == 0 {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, r := range p.Records {
					handle(r.Value)
				}
			}()
		})
		wg.Wait()
	}
}

// Close commits what was consumed, leaves the group and closes the connections.
func (c *Consumer) Close() { c.cl.Close() }
