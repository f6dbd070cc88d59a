package cpuwork

import "testing"

func TestJSONEncode(t *testing.T) {
	// Each encoded string is 10 characters plus two quotes.
	if got := JSONEncode(3); got != 36 {
		t.Fatalf("JSONEncode(3) = %d, want 36", got)
	}
}

func BenchmarkJSONEncode1000(b *testing.B) {
	for b.Loop() {
		JSONEncode(1000)
	}
}
