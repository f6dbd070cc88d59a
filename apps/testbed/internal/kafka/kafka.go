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

// NewProducer returns a producer that queues records in its client and reports each
// one's acknowledgement by the partition leader later.
func NewProducer(brokers []string, topic string) (*Producer, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(), // idempotent writes require acks from all in-sync replicas
		// No lingering: records that arrive while a produce request is in flight are
		// batched into the next one anyway.
		kgo.ProducerLinger(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.RecordDeliveryTimeout(10*time.Second),
	)
	if err != nil {
		return nil, err
	}
	return &Producer{cl: cl}, nil
}

// Send queues event and returns at once: the request does not wait for the broker.
// done gets the broker's acknowledgement or the failure (after at most the delivery
// timeout). The record outlives the request, so it is not bound to ctx; a full buffer
// blocks the caller, which is the producer's back-pressure.
func (p *Producer) Send(_ context.Context, event []byte, done func(error)) error {
	p.cl.Produce(context.Background(), &kgo.Record{Value: event}, func(_ *kgo.Record, err error) { done(err) })
	return nil
}

// Close waits (bounded) for queued records to be acknowledged, then closes the connections.
func (p *Producer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.cl.Flush(ctx)
	p.cl.Close()
}

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
