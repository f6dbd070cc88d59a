// Package cpuwork burns CPU in a way comparable across runs and machines.
package cpuwork

import (
	"encoding/json"
	"math/rand/v2"
)

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// JSONEncode JSON-encodes a fresh random string of size characters n times and returns
// the total encoded length (callers may ignore it; it keeps the work observable).
func JSONEncode(n, size int) int {
	total := 0
	buf := make([]byte, size)
	for range n {
		fill(buf)
		out, err := json.Marshal(string(buf))
		if err != nil {
			panic(err) // a string always encodes
		}
		total += len(out)
	}
	return total
}

// RandomString returns n random alphanumeric characters (safe in JSON and logs as is).
func RandomString(n int) string {
	buf := make([]byte, n)
	fill(buf)
	return string(buf)
}

func fill(buf []byte) {
	for i := range buf {
		buf[i] = alphabet[rand.IntN(len(alphabet))]
	}
}
