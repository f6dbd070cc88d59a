package store

import (
	"context"
	"net"
	"net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type postgres struct{ pool *pgxpool.Pool }

func openPostgres(ctx context.Context, host, password string, poolSize int) (*postgres, error) {
	dsn := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword("lab", password),
		Host:     net.JoinHostPort(host, "5432"),
		Path:     "/lab",
		RawQuery: "sslmode=disable&connect_timeout=5",
	}
	cfg, err := pgxpool.ParseConfig(dsn.String())
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(poolSize)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return &postgres{pool: pool}, nil
}

func (p *postgres) Products(ctx context.Context) ([]Product, error) {
	rows, err := p.pool.Query(ctx, "SELECT id, name, price FROM products")
	if err != nil {
		return nil, err
	}
	products, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Product, error) {
		var p Product
		err := row.Scan(&p.ID, &p.Name, &p.Price)
		return p, err
	})
	if products == nil {
		products = []Product{}
	}
	return products, err
}

func (p *postgres) InsertActivity(ctx context.Context) (string, error) {
	a := newActivity()
	_, err := p.pool.Exec(ctx,
		"INSERT INTO activities (id, user_id, created_at, data) VALUES ($1, $2, $3, $4)",
		a.id, a.userID, a.createdAt, a.data)
	return a.id, err
}

func (p *postgres) Close() { p.pool.Close() }
