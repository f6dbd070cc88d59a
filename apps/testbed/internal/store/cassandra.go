package store

import (
	"context"
	"strconv"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"gopkg.in/inf.v0"
)

type cassandra struct{ session *gocql.Session }

func openCassandra(ctx context.Context, host string, poolSize int) (*cassandra, error) {
	cluster := gocql.NewCluster(host)
	cluster.Port = 9042
	cluster.Keyspace = "lab"
	cluster.Consistency = gocql.Quorum
	cluster.NumConns = poolSize
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 5 * time.Second
	// Use the seed as given: the node's own view of its address (system.local/peers)
	// may not be reachable from here, e.g. through a published port.
	cluster.DisableInitialHostLookup = true
	cluster.PoolConfig.HostSelectionPolicy = gocql.SingleHostReadyPolicy(gocql.RoundRobinHostPolicy())

	type result struct {
		s   *gocql.Session
		err error
	}
	// CreateSession takes no context; give up waiting for it when ctx ends.
	done := make(chan result, 1)
	go func() {
		s, err := cluster.CreateSession()
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return &cassandra{session: r.s}, nil
	case <-ctx.Done():
		go func() {
			if r := <-done; r.s != nil {
				r.s.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

func (c *cassandra) Products(ctx context.Context) ([]Product, error) {
	scanner := c.session.Query("SELECT id, name, price FROM products").IterContext(ctx).Scanner()
	products := []Product{}
	for scanner.Next() {
		var p Product
		var price *inf.Dec
		if err := scanner.Scan(&p.ID, &p.Name, &price); err != nil {
			return nil, err
		}
		if price != nil {
			// A decimal(10,2)-sized value converts exactly to the nearest float64's shortest form.
			f, err := strconv.ParseFloat(price.String(), 64)
			if err != nil {
				return nil, err
			}
			p.Price = &f
		}
		products = append(products, p)
	}
	return products, scanner.Err()
}

func (c *cassandra) InsertActivity(ctx context.Context) (string, error) {
	a := newActivity()
	err := c.session.Query(
		"INSERT INTO activities (id, user_id, created_at, data) VALUES (?, ?, ?, ?)",
		a.id, a.userID, a.createdAt, a.data,
	).Consistency(gocql.Quorum).ExecContext(ctx)
	return a.id, err
}

func (c *cassandra) Close() { c.session.Close() }
