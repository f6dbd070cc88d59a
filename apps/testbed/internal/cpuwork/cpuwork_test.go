package cpuwork

import (
	"regexp"
	"testing"
)

func TestJSONEncode(t *testing.T) {
	// Each encoded string is its characters plus two quotes.
	if got := JSONEncode(3, 10); got != 36 {
		t.Fatalf("JSONEncode(3, 10) = %d, want 36", got)
	}
	if got := JSONEncode(2, 50); got != 104 {
		t.Fatalf("JSONEncode(2, 50) = %d, want 104", got)
	}
}

func TestRandomString(t *testing.T) {
	s := RandomString(100)
	if !regexp.MustCompile(`^[A-Za-z0-9]{100}$`).MatchString(s) {
		t.Fatalf("RandomString(100) = %q", s)
	}
	if s == RandomString(100) {
		t.Fatal("two random strings are equal")
	}
}

func BenchmarkJSONEncode1000(b *testing.B) {
	for b.Loop() {
		JSONEncode(1000, 10)
	}
}
