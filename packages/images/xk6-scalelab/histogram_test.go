package scalelab

import "testing"

// The slots of sl-wrk's sl_slot (sl-wrk.patch) and of histogram.ts, at their edges.
func TestSlot(t *testing.T) {
	cases := map[uint64]uint64{0: 0, 1: 1, 255: 255, 256: 256, 257: 256, 258: 257, 511: 383, 512: 384, 1023: 511, 1024: 512, 1_000_000: 1780}
	for us, want := range cases {
		if got := Slot(us); got != want {
			t.Errorf("Slot(%d) = %d, want %d", us, got, want)
		}
	}
}

func TestMicrosAndJSON(t *testing.T) {
	h := Histogram{}
	for _, ms := range []float64{0.2504, 0.2506, 1.0, 1.0, -1} {
		h.Add(ms)
	}
	if got, want := h.JSON(), `{"0":1,"250":1,"251":1,"506":2}`; got != want {
		t.Errorf("JSON() = %s, want %s", got, want)
	}
	if h.Count() != 5 {
		t.Errorf("Count() = %d", h.Count())
	}
}
