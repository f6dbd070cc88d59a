// Package downstream sends events to the logs role over HTTP.
package downstream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// HTTP posts events to a URL and waits for a 2xx answer.
type HTTP struct {
	url    string
	client *http.Client
}

// NewHTTP returns a sender to url sharing one keep-alive connection pool.
func NewHTTP(url string) *HTTP {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // load must never detour through a proxy from the environment
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 256
	return &HTTP{url: url, client: &http.Client{Transport: t, Timeout: 10 * time.Second}}
}

// Send posts the JSON event and waits for the answer; done gets the same outcome.
func (h *HTTP) Send(ctx context.Context, event []byte, done func(error)) error {
	err := h.post(ctx, event)
	done(err)
	return err
}

func (h *HTTP) post(ctx context.Context, event []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(event))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Reading the body to its end lets the connection be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s answered %s", h.url, resp.Status)
	}
	return nil
}

// Close drops the idle connections.
func (h *HTTP) Close() { h.client.CloseIdleConnections() }
