// Package rabbitmq publishes events to a durable queue with publisher confirms and consumes
// them with manual acknowledgements, over AMQP 0-9-1 (RabbitMQ). Both sides reconnect when
// the connection is lost, as when a fault stops the broker.
package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"scalelab/testbed/internal/ready"
)

// MaxInFlight bounds the events published but not confirmed yet; Send blocks while it is
// reached, which is the publisher's back-pressure (franz-go buffers as many records).
const MaxInFlight = 10000

// retryBackoff caps the wait between connection attempts, so that the clients are back within
// a second of a broker that a fault stopped and started again.
const retryBackoff = time.Second

// heartbeat detects a broker that stopped answering (paused, or its host gone) within about
// three intervals; a stopped broker closes the connection or refuses it at once.
const heartbeat = 5 * time.Second

// ErrNotConnected is the outcome of an event sent while the connection is being re-established.
var ErrNotConnected = errors.New("rabbitmq: not connected")

// confirmation is a publisher confirm to come (*amqp.DeferredConfirmation).
type confirmation interface {
	Done() <-chan struct{}
	Acked() bool
}

// link is one connection and channel with the queue declared: set up for publishing (confirm
// mode) or consuming (a prefetch and a consumer). Its methods may be called concurrently.
type link interface {
	publish(body []byte) (confirmation, error)
	deliveries() <-chan amqp.Delivery
	// lost is closed when the connection or the channel ends; err tells why.
	lost() <-chan struct{}
	err() error
	// closing is true from the moment the channel starts to end, before the confirms still
	// awaited end as not acknowledged.
	closing() bool
	close()
}

// dialer connects a link; ctx bounds the attempt.
type dialer func(ctx context.Context) (link, error)

// Publisher publishes events as persistent messages to one queue through the default exchange.
type Publisher struct {
	dial    dialer
	flush   time.Duration // how long Close waits for the events in flight
	current atomic.Pointer[link]
	slots   chan struct{}  // one per event in flight (published, outcome not reported yet)
	pending chan inFlight  // events in flight, to the goroutine that reports their outcomes
	stopped chan struct{}  // closed when that goroutine has stopped
	drained sync.WaitGroup // held by every event in flight
}

type inFlight struct {
	c    confirmation
	l    link
	done func(error)
}

// NewPublisher returns a publisher that is not connected yet: Run connects it.
func NewPublisher(url, queue string) *Publisher {
	return newPublisher(func(ctx context.Context) (link, error) { return dialAMQP(ctx, url, queue, publishing) }, MaxInFlight)
}

func newPublisher(dial dialer, maxInFlight int) *Publisher {
	p := &Publisher{
		dial:    dial,
		flush:   5 * time.Second,
		slots:   make(chan struct{}, maxInFlight),
		pending: make(chan inFlight, maxInFlight),
		stopped: make(chan struct{}),
	}
	go p.report()
	return p
}

// Run connects (again whenever the connection is lost) until ctx ends; connected is called
// after every successful connection. The connection in use outlives ctx: Close ends it.
func (p *Publisher) Run(ctx context.Context, connected func()) {
	for {
		l, err := ready.RetryUpTo(ctx, "rabbitmq", retryBackoff, func(ctx context.Context) (link, error) { return p.dial(ctx) })
		if err != nil {
			return
		}
		p.current.Store(&l)
		connected()
		select {
		case <-l.lost():
			p.current.CompareAndSwap(&l, nil)
			log.Printf("rabbitmq: connection lost, reconnecting: %v", l.err())
			l.close()
		case <-ctx.Done():
			return
		}
	}
}

// Send publishes event and returns once the client has written it: the request does not wait
// for the broker. done gets the broker's confirm or the failure (a nack, or the connection lost
// before the confirm). While MaxInFlight events wait for their confirms, Send blocks until one
// is confirmed or ctx ends. When the event cannot be published (no connection), done gets the
// same error Send returns.
func (p *Publisher) Send(ctx context.Context, event []byte, done func(error)) error {
	fail := func(err error) error {
		done(err)
		return err
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	release := func() { <-p.slots }
	lp := p.current.Load()
	if lp == nil {
		release()
		return fail(ErrNotConnected)
	}
	l := *lp
	c, err := l.publish(event)
	if err != nil {
		release()
		return fail(fmt.Errorf("rabbitmq: publish: %w", err))
	}
	p.drained.Add(1)
	p.pending <- inFlight{c: c, l: l, done: done} // never blocks: the slot is held
	return nil
}

// report hands each event's outcome to its done, in the order they were published. A later
// confirm waits for an earlier one; every confirm ends, at the latest when its connection does.
func (p *Publisher) report() {
	defer close(p.stopped)
	for f := range p.pending {
		<-f.c.Done()
		switch {
		case f.c.Acked():
			f.done(nil)
		case f.l.closing():
			f.done(errors.New("rabbitmq: connection lost before the broker confirmed the event"))
		default:
			f.done(errors.New("rabbitmq: the broker refused the event (nack)"))
		}
		<-p.slots
		p.drained.Done()
	}
}

// Close waits (at most 5 s) for the events in flight to be confirmed, then closes the
// connection. Run must have returned and no Send may be running or follow.
func (p *Publisher) Close() {
	flushed := make(chan struct{})
	go func() { p.drained.Wait(); close(flushed) }()
	select {
	case <-flushed:
	case <-time.After(p.flush):
	}
	if lp := p.current.Swap(nil); lp != nil {
		(*lp).close() // ends the confirms still awaited
	}
	close(p.pending)
	<-p.stopped
}

// Consumer consumes one queue with manual acknowledgements and a prefetch.
type Consumer struct{ dial dialer }

// NewConsumer returns a consumer that is not connected yet: Run connects it.
func NewConsumer(url, queue string, prefetch int) *Consumer {
	prefetch = max(prefetch, 1)
	return &Consumer{dial: func(ctx context.Context) (link, error) { return dialAMQP(ctx, url, queue, prefetch) }}
}

// Run connects (again whenever the connection is lost) and hands each delivery's body to
// handle, then acknowledges it, one at a time, until ctx ends; connected is called after every
// successful connection and onError with every lost connection and failed acknowledgement.
// Deliveries not acknowledged when a connection ends are delivered again (at least once).
func (c *Consumer) Run(ctx context.Context, connected func(), handle func(body []byte), onError func(error)) {
	for {
		l, err := ready.RetryUpTo(ctx, "rabbitmq", retryBackoff, func(ctx context.Context) (link, error) { return c.dial(ctx) })
		if err != nil {
			return
		}
		connected()
		c.consume(ctx, l, handle, onError)
		l.close()
		<-l.lost()
		if ctx.Err() != nil {
			return
		}
		onError(fmt.Errorf("rabbitmq: connection lost: %v", l.err()))
		log.Printf("rabbitmq: connection lost, reconnecting: %v", l.err())
	}
}

// consume returns when ctx ends or the deliveries stop (the connection or channel ended, or
// the broker cancelled the consumer, as when the queue is deleted).
func (c *Consumer) consume(ctx context.Context, l link, handle func([]byte), onError func(error)) {
	deliveries := l.deliveries()
	for {
		select {
		case <-ctx.Done():
			return
		case d, ok := <-deliveries:
			if !ok {
				return
			}
			handle(d.Body)
			if err := d.Ack(false); err != nil {
				onError(fmt.Errorf("rabbitmq: ack: %w", err))
			}
		}
	}
}

// publishing is the prefetch that sets a link up for publishing instead of consuming.
const publishing = 0

// amqpLink is a link over amqp091-go.
type amqpLink struct {
	conn      *amqp.Connection
	ch        *amqp.Channel
	queue     string
	delivered <-chan amqp.Delivery
	done      chan struct{}
	reason    atomic.Pointer[error]
}

// dialAMQP connects to url, opens a channel and declares queue (durable; whoever comes first
// creates it). With prefetch = publishing the channel is put in confirm mode; otherwise it
// consumes the queue with manual acknowledgements, prefetch deliveries unacknowledged at most.
func dialAMQP(ctx context.Context, url, queue string, prefetch int) (_ link, err error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(30 * time.Second)
	}
	conn, err := amqp.DialConfig(url, amqp.Config{
		Heartbeat: heartbeat,
		Dial: func(network, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			// Bounds the handshake; the library clears it once the connection is open.
			if err := c.SetDeadline(deadline); err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		},
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = conn.CloseDeadline(time.Now().Add(closeTimeout))
		}
	}()
	ch, err := conn.Channel()
	if err != nil {
		return nil, err
	}
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		return nil, fmt.Errorf("declare queue %s: %w", queue, err)
	}
	l := &amqpLink{conn: conn, ch: ch, queue: queue, done: make(chan struct{})}
	if prefetch == publishing {
		if err := ch.Confirm(false); err != nil {
			return nil, fmt.Errorf("confirm mode: %w", err)
		}
	} else {
		if err := ch.Qos(prefetch, 0, false); err != nil {
			return nil, fmt.Errorf("prefetch: %w", err)
		}
		if l.delivered, err = ch.Consume(queue, "", false, false, false, false, nil); err != nil {
			return nil, fmt.Errorf("consume %s: %w", queue, err)
		}
	}
	go l.watch(conn.NotifyClose(make(chan *amqp.Error, 1)), ch.NotifyClose(make(chan *amqp.Error, 1)))
	return l, nil
}

// closeTimeout bounds the close handshake with a broker that stopped answering.
const closeTimeout = 2 * time.Second

// watch marks the link lost when its connection or channel ends. A channel error (such as a
// deleted queue) leaves the connection open: it is closed too.
func (l *amqpLink) watch(connClosed, chClosed <-chan *amqp.Error) {
	var e *amqp.Error
	select {
	case e = <-connClosed:
	case e = <-chClosed:
	}
	reason := errors.New("closed")
	if e != nil {
		reason = e
	}
	l.reason.Store(&reason)
	close(l.done)
	l.close()
}

func (l *amqpLink) publish(body []byte) (confirmation, error) {
	dc, err := l.ch.PublishWithDeferredConfirm("", l.queue, false, false, amqp.Publishing{
		ContentType:  "application/json",
		DeliveryMode: amqp.Persistent,
		Body:         body,
	})
	if err != nil {
		return nil, err
	}
	return dc, nil
}

func (l *amqpLink) deliveries() <-chan amqp.Delivery { return l.delivered }
func (l *amqpLink) lost() <-chan struct{}            { return l.done }

func (l *amqpLink) err() error {
	if r := l.reason.Load(); r != nil {
		return *r
	}
	return nil
}

func (l *amqpLink) closing() bool { return l.ch.IsClosed() }

func (l *amqpLink) close() { _ = l.conn.CloseDeadline(time.Now().Add(closeTimeout)) }
