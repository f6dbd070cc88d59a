package scalelab

import (
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// SubBits gives 128 slots per doubling: sl-wrk's SL_SUB_BITS (packages/images/contexts/wrk/sl-wrk.patch)
// and packages/scenarios/src/loadgen/histogram.ts use the same slots, so histograms of both
// generators merge by adding counts.
const SubBits = 7

// Slot is the histogram slot of a latency in microseconds: the value itself below 256 us, then
// (shift << 7) + (us >> shift) with shift = floor(log2(us)) - 7. A slot is under 1/128 of its values wide.
func Slot(us uint64) uint64 {
	if us < 2<<SubBits {
		return us
	}
	shift := uint64(63-bits.LeadingZeros64(us)) - SubBits
	return shift<<SubBits + us>>shift
}

// Micros turns a duration in milliseconds (k6's trend value) into whole microseconds, rounded.
func Micros(ms float64) uint64 {
	if !(ms > 0) {
		return 0
	}
	if ms >= math.MaxUint64/1000 {
		return math.MaxUint64
	}
	return uint64(math.Round(ms * 1000))
}

// Histogram counts latencies by slot.
type Histogram map[uint64]uint64

// Add records one latency in milliseconds.
func (h Histogram) Add(ms float64) {
	h[Slot(Micros(ms))]++
}

// Merge adds the counts of o.
func (h Histogram) Merge(o Histogram) {
	for slot, n := range o {
		h[slot] += n
	}
}

// Count is the number of latencies recorded.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h {
		n += c
	}
	return n
}

// JSON is the sparse form sl-wrk prints: {"<slot>":count,...}, slots in order.
func (h Histogram) JSON() string {
	slots := make([]uint64, 0, len(h))
	for slot := range h {
		slots = append(slots, slot)
	}
	sort.Slice(slots, func(i, j int) bool { return slots[i] < slots[j] })
	var b strings.Builder
	b.WriteByte('{')
	for i, slot := range slots {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strconv.FormatUint(slot, 10))
		b.WriteString(`":`)
		b.WriteString(strconv.FormatUint(h[slot], 10))
	}
	b.WriteByte('}')
	return b.String()
}
