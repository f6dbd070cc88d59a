package scalelab

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.k6.io/k6/metrics"
)

func sample(m *metrics.Metric, at time.Time, ms float64) metrics.SampleContainer {
	return metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m}, Time: at, Value: ms}
}

// Seconds by each sample's own time, printed once over (plus the grace) and in order; a late sample
// of a printed second counts in the total only; other metrics are left out.
func TestOutputLines(t *testing.T) {
	registry := metrics.NewRegistry()
	duration := registry.MustNewMetric("http_req_duration", metrics.Trend, metrics.Time)
	other := registry.MustNewMetric("iteration_duration", metrics.Trend, metrics.Time)
	start := time.Unix(1000, 0)
	now := start
	var out bytes.Buffer
	o := &Output{metric: "http_req_duration", out: &out, seconds: map[int64]Histogram{}, total: Histogram{}, now: func() time.Time { return now }, start: start}

	o.AddMetricSamples([]metrics.SampleContainer{
		sample(duration, start.Add(100*time.Millisecond), 1.0),
		sample(duration, start.Add(900*time.Millisecond), 2.0),
		sample(duration, start.Add(2500*time.Millisecond), 0.1),
		sample(other, start.Add(200*time.Millisecond), 50),
	})
	now = start.Add(1400 * time.Millisecond)
	o.flush(false)
	if out.Len() != 0 {
		t.Fatalf("second 0 printed before its grace: %q", out.String())
	}
	now = start.Add(1600 * time.Millisecond)
	o.flush(false)
	o.AddMetricSamples([]metrics.SampleContainer{sample(duration, start.Add(500*time.Millisecond), 3.0)})
	o.flush(true)
	if err := o.write(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"type":"scalelab-hist","t":0,"count":2,"hist":{"506":1,"634":1}}`,
		`{"type":"scalelab-hist","t":2,"count":1,"hist":{"100":1}}`,
		`{"type":"scalelab-hist-total","count":4,"hist":{"100":1,"506":1,"634":1,"699":1}}`,
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
