// Package scalelab is a k6 output (`--out scalelab=<trend metric>`, default http_req_duration):
// it records the metric's samples in sl-wrk's log-linear histogram and prints on k6's stdout one
// JSON line per second of the test and one for the whole run:
//
//	{"type":"scalelab-hist","t":<s>,"count":N,"hist":{"<slot>":N,...}}
//	{"type":"scalelab-hist-total","count":N,"hist":{...}}
//
// t counts whole seconds from the output's start, by each sample's own time (the web dashboard,
// another output, starts with it). A second is printed once it is over and a grace for samples
// still on their way has passed, or at the end; seconds without a sample print nothing. The lab's
// worker joins these lines to the dashboard's seconds and merges the instances' histograms.
package scalelab

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"go.k6.io/k6/metrics"
	"go.k6.io/k6/output"
)

// Grace is how long after a second's end its samples may still arrive (k6 hands samples to the
// outputs about every 50 ms).
const Grace = 500 * time.Millisecond

func init() {
	output.RegisterExtension("scalelab", New)
}

// Output records one trend metric per second.
type Output struct {
	metric  string
	out     io.Writer
	mu      sync.Mutex
	start   time.Time
	seconds map[int64]Histogram
	total   Histogram
	printed int64 // seconds below this are printed
	flusher *output.PeriodicFlusher
	now     func() time.Time
}

// New reads the metric's name from the argument of --out scalelab=<name>.
func New(p output.Params) (output.Output, error) {
	metric := p.ConfigArgument
	if metric == "" {
		metric = "http_req_duration"
	}
	return &Output{metric: metric, out: p.StdOut, seconds: map[int64]Histogram{}, total: Histogram{}, now: time.Now}, nil
}

// Description is what k6 shows in its banner.
func (o *Output) Description() string {
	return fmt.Sprintf("scalelab (%s histograms on stdout)", o.metric)
}

// Start begins the seconds and prints completed ones every 250 ms.
func (o *Output) Start() error {
	o.start = o.now()
	f, err := output.NewPeriodicFlusher(250*time.Millisecond, func() { o.flush(false) })
	if err != nil {
		return err
	}
	o.flusher = f
	return nil
}

// AddMetricSamples records the samples of the metric (every tag set: sub-metrics are not separate samples).
func (o *Output) AddMetricSamples(containers []metrics.SampleContainer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range containers {
		for _, s := range c.GetSamples() {
			if s.Metric == nil || s.Metric.Name != o.metric {
				continue
			}
			t := int64(s.Time.Sub(o.start) / time.Second)
			if s.Time.Before(o.start) {
				t = 0
			}
			// A late sample of a second already printed goes to the whole run only.
			if t >= o.printed {
				h := o.seconds[t]
				if h == nil {
					h = Histogram{}
					o.seconds[t] = h
				}
				h.Add(s.Value)
			}
			o.total.Add(s.Value)
		}
	}
}

// Stop prints every second left, then the whole run.
func (o *Output) Stop() error {
	o.flusher.Stop()
	o.flush(true)
	return o.write()
}

func (o *Output) write() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := fmt.Fprintf(o.out, "{\"type\":\"scalelab-hist-total\",\"count\":%d,\"hist\":%s}\n", o.total.Count(), o.total.JSON())
	return err
}

func (o *Output) flush(all bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	done := int64(o.now().Add(-Grace).Sub(o.start) / time.Second)
	ts := make([]int64, 0, len(o.seconds))
	for t := range o.seconds {
		if all || t < done {
			ts = append(ts, t)
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	for _, t := range ts {
		h := o.seconds[t]
		fmt.Fprintf(o.out, "{\"type\":\"scalelab-hist\",\"t\":%d,\"count\":%d,\"hist\":%s}\n", t, h.Count(), h.JSON())
		delete(o.seconds, t)
	}
	if all {
		o.printed = 1 << 62
	} else if done > o.printed {
		o.printed = done
	}
}
