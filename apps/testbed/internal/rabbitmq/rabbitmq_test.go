package rabbitmq

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"scalelab/testbed/internal/ready"
	"scalelab/testbed/internal/testutil"
)

// The broker itself is proven in packages/images (images.integration.test.ts): a real
// RabbitMQ container, the testbed's service and consumer roles, and a broker restart. These
// tests drive the publisher's and consumer's logic through fake links.

type fakeConfirm struct {
	done chan struct{}
	ack  bool
}

func (c *fakeConfirm) Done() <-chan struct{} { return c.done }
func (c *fakeConfirm) Acked() bool {
	select {
	case <-c.done:
		return c.ack
	default:
		return false
	}
}

type fakeLink struct {
	mu         sync.Mutex
	published  []string
	confirms   []*fakeConfirm
	publishErr error
	acked      []uint64
	deliv      chan amqp.Delivery
	done       chan struct{}
	reason     error
	closeCalls int
}

func newFakeLink() *fakeLink {
	return &fakeLink{deliv: make(chan amqp.Delivery, 16), done: make(chan struct{})}
}

func (l *fakeLink) publish(body []byte) (confirmation, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.publishErr != nil {
		return nil, l.publishErr
	}
	if l.reason != nil {
		return nil, amqp.ErrClosed
	}
	c := &fakeConfirm{done: make(chan struct{})}
	l.published = append(l.published, string(body))
	l.confirms = append(l.confirms, c)
	return c, nil
}

// confirm acknowledges (or nacks) the i-th publish.
func (l *fakeLink) confirm(i int, ack bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.confirms[i].ack = ack
	close(l.confirms[i].done)
}

func (l *fakeLink) publishedBodies() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.published)
}

func (l *fakeLink) publishedCount() int { return len(l.publishedBodies()) }

func (l *fakeLink) closeCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closeCalls
}

// lose ends the link as a lost connection does in the library: every confirm still awaited
// ends as not acknowledged, the deliveries stop.
func (l *fakeLink) lose(reason error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reason != nil {
		return
	}
	l.reason = reason
	for _, c := range l.confirms {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
	}
	close(l.deliv)
	close(l.done)
}

func (l *fakeLink) deliveries() <-chan amqp.Delivery { return l.deliv }
func (l *fakeLink) lost() <-chan struct{}            { return l.done }
func (l *fakeLink) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reason
}
func (l *fakeLink) closing() bool { return l.err() != nil }

func (l *fakeLink) close() {
	l.mu.Lock()
	l.closeCalls++
	l.mu.Unlock()
	l.lose(errors.New("closed"))
}

func (l *fakeLink) Ack(tag uint64, multiple bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked = append(l.acked, tag)
	return nil
}
func (l *fakeLink) Nack(uint64, bool, bool) error { return errors.New("unexpected nack") }
func (l *fakeLink) Reject(uint64, bool) error     { return errors.New("unexpected reject") }

func (l *fakeLink) deliver(tag uint64, body string) {
	l.deliv <- amqp.Delivery{Acknowledger: l, DeliveryTag: tag, Body: []byte(body)}
}

func (l *fakeLink) ackedTags() []uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acked)
}

// fakeBroker hands out its links in order, failing a dial while none is queued.
type fakeBroker struct {
	mu    sync.Mutex
	links []*fakeLink
	dials atomic.Int64
}

func (b *fakeBroker) add(l *fakeLink) *fakeLink {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.links = append(b.links, l)
	return l
}

func (b *fakeBroker) dial(ctx context.Context) (link, error) {
	b.dials.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.links) == 0 {
		return nil, errors.New("connection refused")
	}
	l := b.links[0]
	b.links = b.links[1:]
	return l, nil
}

func fastRetries(t *testing.T) {
	first, maxBackoff := ready.FirstBackoff, ready.MaxBackoff
	ready.FirstBackoff, ready.MaxBackoff = time.Millisecond, time.Millisecond
	t.Cleanup(func() { ready.FirstBackoff, ready.MaxBackoff = first, maxBackoff })
}

// outcomes records what each done callback got, in the order they were called.
type outcomes struct {
	mu   sync.Mutex
	errs []error
}

func (o *outcomes) done(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errs = append(o.errs, err)
}

func (o *outcomes) get() []error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.errs)
}

func (o *outcomes) count() int { return len(o.get()) }

// runPublisher starts p.Run and returns the number of connections made so far and a stop
// function that ends Run and closes p.
func runPublisher(t *testing.T, p *Publisher) (connections *atomic.Int64, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	connections = &atomic.Int64{}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		p.Run(ctx, func() { connections.Add(1) })
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-ran
			p.Close()
		})
	}
	t.Cleanup(stop)
	return connections, stop
}

func TestPublisherCountsConfirmsAfterSendReturned(t *testing.T) {
	broker := &fakeBroker{}
	l := broker.add(newFakeLink())
	p := newPublisher(broker.dial, 10)
	connections, _ := runPublisher(t, p)
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })

	var o outcomes
	for _, ev := range []string{"a", "b", "c"} {
		if err := p.Send(context.Background(), []byte(ev), o.done); err != nil {
			t.Fatal(err)
		}
	}
	// Send returned before any confirm: no outcome yet.
	if n := o.count(); n != 0 {
		t.Fatalf("%d outcomes before the broker confirmed", n)
	}
	if got := l.publishedBodies(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("published %v", got)
	}
	l.confirm(2, true) // out of order: reported after the earlier ones
	l.confirm(0, true)
	l.confirm(1, false)
	testutil.Eventually(t, "3 outcomes", func() bool { return o.count() == 3 })
	errs := o.get()
	if errs[0] != nil || errs[2] != nil || errs[1] == nil || !strings.Contains(errs[1].Error(), "nack") {
		t.Fatalf("outcomes %v, want nil, a nack, nil", errs)
	}
}

func TestPublisherFailsAtOnceWithoutAConnection(t *testing.T) {
	p := newPublisher((&fakeBroker{}).dial, 10)
	defer p.Close()
	var o outcomes
	err := p.Send(context.Background(), []byte("x"), o.done)
	if !errors.Is(err, ErrNotConnected) {
		t.Fatalf("Send: %v, want ErrNotConnected", err)
	}
	if errs := o.get(); len(errs) != 1 || !errors.Is(errs[0], ErrNotConnected) {
		t.Fatalf("outcomes %v, want one ErrNotConnected", errs)
	}
}

func TestPublisherReportsAFailedPublish(t *testing.T) {
	broker := &fakeBroker{}
	l := broker.add(newFakeLink())
	l.publishErr = errors.New("frame too large")
	p := newPublisher(broker.dial, 10)
	connections, _ := runPublisher(t, p)
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })
	var o outcomes
	if err := p.Send(context.Background(), []byte("x"), o.done); err == nil || !strings.Contains(err.Error(), "frame too large") {
		t.Fatalf("Send: %v", err)
	}
	if errs := o.get(); len(errs) != 1 || errs[0] == nil {
		t.Fatalf("outcomes %v, want one error", errs)
	}
}

func TestPublisherReconnectsAfterALostConnection(t *testing.T) {
	fastRetries(t)
	broker := &fakeBroker{}
	first := broker.add(newFakeLink())
	p := newPublisher(broker.dial, 10)
	connections, _ := runPublisher(t, p)
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })

	var o outcomes
	for range 2 {
		if err := p.Send(context.Background(), []byte("x"), o.done); err != nil {
			t.Fatal(err)
		}
	}
	first.confirm(0, true)
	dialsBefore := broker.dials.Load()
	first.lose(errors.New("CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'"))
	testutil.Eventually(t, "both outcomes", func() bool { return o.count() == 2 })
	if errs := o.get(); errs[0] != nil || errs[1] == nil || !strings.Contains(errs[1].Error(), "connection lost") {
		t.Fatalf("outcomes %v, want nil, then connection lost", errs)
	}

	// The broker refuses connections for a while: sends fail at once, the publisher retries.
	testutil.Eventually(t, "two more dials", func() bool { return broker.dials.Load() >= dialsBefore+2 })
	if err := p.Send(context.Background(), []byte("y"), o.done); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("Send while reconnecting: %v", err)
	}

	second := broker.add(newFakeLink())
	testutil.Eventually(t, "reconnected", func() bool { return connections.Load() == 2 })
	if err := p.Send(context.Background(), []byte("z"), o.done); err != nil {
		t.Fatal(err)
	}
	second.confirm(0, true)
	testutil.Eventually(t, "4 outcomes", func() bool { return o.count() == 4 })
	if errs := o.get(); errs[3] != nil {
		t.Fatalf("outcome after reconnecting: %v", errs[3])
	}
	if first.closeCount() != 1 {
		t.Errorf("the lost link was closed %d times, want 1", first.closeCount())
	}
}

func TestPublisherBlocksWhileMaxInFlightAwaitConfirms(t *testing.T) {
	broker := &fakeBroker{}
	l := broker.add(newFakeLink())
	p := newPublisher(broker.dial, 2)
	p.flush = 10 * time.Millisecond // two events stay unconfirmed
	connections, _ := runPublisher(t, p)
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })
	var o outcomes
	for range 2 {
		if err := p.Send(context.Background(), []byte("x"), o.done); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Send(ctx, []byte("x"), o.done); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third Send: %v, want it to wait until its context ended", err)
	}
	if n := l.publishedCount(); n != 2 {
		t.Fatalf("%d published, want 2", n)
	}

	sent := make(chan error, 1)
	go func() { sent <- p.Send(context.Background(), []byte("x"), o.done) }()
	l.confirm(0, true)
	if err := <-sent; err != nil {
		t.Fatalf("Send after a confirm freed a slot: %v", err)
	}
	if n := l.publishedCount(); n != 3 {
		t.Fatalf("%d published, want 3", n)
	}
}

func TestPublisherCloseWaitsForTheConfirmsInFlight(t *testing.T) {
	broker := &fakeBroker{}
	l := broker.add(newFakeLink())
	p := newPublisher(broker.dial, 10)
	connections, stop := runPublisher(t, p)
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })
	var o outcomes
	if err := p.Send(context.Background(), []byte("x"), o.done); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Close returned before the event in flight was confirmed")
	case <-time.After(20 * time.Millisecond):
	}
	l.confirm(0, true)
	<-stopped
	if errs := o.get(); len(errs) != 1 || errs[0] != nil {
		t.Fatalf("outcomes %v", errs)
	}
	if l.closeCount() != 1 {
		t.Errorf("link closed %d times, want 1", l.closeCount())
	}
}

func TestPublisherCloseGivesUpOnMissingConfirms(t *testing.T) {
	broker := &fakeBroker{}
	broker.add(newFakeLink())
	p := newPublisher(broker.dial, 10)
	p.flush = 10 * time.Millisecond
	connections, stop := runPublisher(t, p)
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })
	var o outcomes
	if err := p.Send(context.Background(), []byte("x"), o.done); err != nil {
		t.Fatal(err)
	}
	stop()
	if errs := o.get(); len(errs) != 1 || errs[0] == nil {
		t.Fatalf("outcomes %v, want the unconfirmed event failed", errs)
	}
}

func runConsumer(t *testing.T, c *Consumer, handle func([]byte)) (connections *atomic.Int64, errs *outcomes, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	connections, errs = &atomic.Int64{}, &outcomes{}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		c.Run(ctx, func() { connections.Add(1) }, handle, errs.done)
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-ran }) }
	t.Cleanup(stop)
	return connections, errs, stop
}

func TestConsumerAcknowledgesEachDeliveryAfterHandlingIt(t *testing.T) {
	broker := &fakeBroker{}
	l := broker.add(newFakeLink())
	var mu sync.Mutex
	var handled []string
	var ackedWhenHandled []int
	connections, errs, stop := runConsumer(t, &Consumer{dial: broker.dial}, func(body []byte) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, string(body))
		ackedWhenHandled = append(ackedWhenHandled, len(l.ackedTags()))
	})
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })
	for i, body := range []string{"a", "b", "c"} {
		l.deliver(uint64(i+1), body)
	}
	testutil.Eventually(t, "3 acks", func() bool { return len(l.ackedTags()) == 3 })
	stop()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(handled, []string{"a", "b", "c"}) || !slices.Equal(ackedWhenHandled, []int{0, 1, 2}) {
		t.Fatalf("handled %v with %v acks before each, want a, b, c each acked after its work", handled, ackedWhenHandled)
	}
	if tags := l.ackedTags(); !slices.Equal(tags, []uint64{1, 2, 3}) {
		t.Fatalf("acked %v", tags)
	}
	if n := errs.count(); n != 0 {
		t.Fatalf("%d errors: %v", n, errs.get())
	}
	if l.closeCount() != 1 {
		t.Errorf("link closed %d times, want 1", l.closeCount())
	}
}

func TestConsumerReconnectsAfterALostConnection(t *testing.T) {
	fastRetries(t)
	broker := &fakeBroker{}
	first := broker.add(newFakeLink())
	var handled atomic.Int64
	connections, errs, _ := runConsumer(t, &Consumer{dial: broker.dial}, func([]byte) { handled.Add(1) })
	testutil.Eventually(t, "connected", func() bool { return connections.Load() == 1 })
	first.deliver(1, "a")
	testutil.Eventually(t, "1 handled", func() bool { return handled.Load() == 1 })

	first.lose(errors.New("CONNECTION_FORCED"))
	testutil.Eventually(t, "the loss counted", func() bool { return errs.count() == 1 })
	if err := errs.get()[0]; !strings.Contains(err.Error(), "connection lost") || !strings.Contains(err.Error(), "CONNECTION_FORCED") {
		t.Fatalf("error %v", err)
	}
	second := broker.add(newFakeLink())
	testutil.Eventually(t, "reconnected", func() bool { return connections.Load() == 2 })
	second.deliver(1, "b")
	testutil.Eventually(t, "2 handled", func() bool { return handled.Load() == 2 })
	testutil.Eventually(t, "acked on the new link", func() bool { return slices.Equal(second.ackedTags(), []uint64{1}) })
}

func TestConsumerRetriesUntilTheBrokerAnswers(t *testing.T) {
	fastRetries(t)
	broker := &fakeBroker{}
	connections, _, stop := runConsumer(t, &Consumer{dial: broker.dial}, func([]byte) {})
	testutil.Eventually(t, "several dials", func() bool { return broker.dials.Load() >= 3 })
	if connections.Load() != 0 {
		t.Fatal("connected without a link")
	}
	stop() // returns although no dial succeeded
}

func TestDialWithoutABroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := dialAMQP(ctx, "amqp://lab:lab@127.0.0.1:1/", "events", publishing); err == nil {
		t.Fatal("dial without a broker succeeded")
	}
}

// A server that accepts connections but never answers must not hold an attempt beyond its
// context's deadline (the AMQP handshake has no heartbeats yet).
func TestDialGivesUpOnASilentServer(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	started := time.Now()
	if _, err := dialAMQP(ctx, "amqp://lab:lab@"+lis.Addr().String()+"/", "events", 10); err == nil {
		t.Fatal("dial to a silent server succeeded")
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Fatalf("dial took %v", took)
	}
}
