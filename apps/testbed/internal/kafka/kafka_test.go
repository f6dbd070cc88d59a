package kafka

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"scalelab/testbed/internal/testutil"
)

func fakeCluster(t *testing.T) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

func partitions(t *testing.T, brokers []string, topic string) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	details, err := kadm.NewClient(cl).ListTopics(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	return len(details[topic].Partitions)
}

func TestEnsureTopic(t *testing.T) {
	brokers := fakeCluster(t)
	ctx := context.Background()
	if err := EnsureTopic(ctx, brokers, "events", 3); err != nil {
		t.Fatal(err)
	}
	if err := EnsureTopic(ctx, brokers, "events", 3); err != nil {
		t.Fatalf("second EnsureTopic: %v", err)
	}
	if n := partitions(t, brokers, "events"); n != 3 {
		t.Fatalf("topic has %d partitions, want 3", n)
	}
}

func TestEnsureTopicWithoutABroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := EnsureTopic(ctx, []string{"127.0.0.1:1"}, "events", 1); err == nil {
		t.Fatal("EnsureTopic without a broker succeeded")
	}
}

func TestProduceThenConsumeFromTheStart(t *testing.T) {
	brokers := fakeCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := EnsureTopic(ctx, brokers, "events", 2); err != nil {
		t.Fatal(err)
	}
	p, err := NewProducer(brokers, "events")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const n = 20
	var acked, failed atomic.Int64
	for range n {
		err := p.Send(ctx, []byte(`{"payload":"x"}`), func(err error) {
			if err != nil {
				failed.Add(1)
			} else {
				acked.Add(1)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, "every record acknowledged", func() bool { return acked.Load()+failed.Load() == n })
	if failed.Load() != 0 {
		t.Fatalf("%d records failed", failed.Load())
	}

	// Two members of one group share the records, which were produced before they joined.
	var consumed, joined, errs atomic.Int64
	done := make(chan struct{}, 2)
	for range 2 {
		c, err := NewConsumer(brokers, "events", "consumers", func() { joined.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c.Run(ctx, func([]byte) { consumed.Add(1) }, func(error) { errs.Add(1) })
			c.Close()
			done <- struct{}{}
		}()
	}
	testutil.Eventually(t, "both members joined", func() bool { return joined.Load() == 2 })
	testutil.Eventually(t, "all records consumed", func() bool { return consumed.Load() >= n })
	cancel()
	<-done
	<-done
	if errs.Load() != 0 {
		t.Errorf("%d fetch errors", errs.Load())
	}
}
