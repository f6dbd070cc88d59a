// Package store reads products and writes activities in Postgres or Cassandra.
// The lab creates the schema (keyspace/database "lab") before the service starts.
package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"scalelab/testbed/internal/config"
	"scalelab/testbed/internal/cpuwork"
)

// Product is a row of products; columns may be NULL.
type Product struct {
	ID    int      `json:"id"`
	Name  *string  `json:"name"`
	Price *float64 `json:"price"`
}

// Store is one of the databases.
type Store interface {
	// Products returns every product.
	Products(ctx context.Context) ([]Product, error)
	// InsertActivity inserts a random activity and returns its id.
	InsertActivity(ctx context.Context) (string, error)
	Close()
}

// Open connects to the configured store and checks that it answers.
func Open(ctx context.Context, cfg config.Config) (Store, error) {
	switch cfg.Storage {
	case config.StoragePostgres:
		return openPostgres(ctx, cfg.DBHost, cfg.DBPassword, cfg.DBPool)
	case config.StorageCassandra:
		return openCassandra(ctx, cfg.DBHost, cfg.DBPool)
	}
	return nil, fmt.Errorf("no store %q", cfg.Storage)
}

// activity is a row of activities with random ids and a random 100-character payload.
type activity struct {
	id, userID string
	createdAt  time.Time
	data       string // a JSON object
}

func newActivity() activity {
	data, err := json.Marshal(map[string]string{"payload": cpuwork.RandomString(100)})
	if err != nil {
		panic(err) // a map of strings always encodes
	}
	return activity{
		id:        uuid.NewString(),
		userID:    uuid.NewString(),
		createdAt: time.Now().UTC(),
		data:      string(data),
	}
}
