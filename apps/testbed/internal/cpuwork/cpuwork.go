// Package cpuwork burns CPU in a way comparable across runs and machines.
package cpuwork

import (
	"encoding/json"
	"math/rand/v2"
)

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// JSONEncode JSON-encodes a fresh random 10-character string n times and returns the
// total encoded length (callers may ignore it; it keeps the work observable).
func JSONEncode(n int) int {
	total := 0
	buf := make([]byte, 10)
	for range n {
		for i := range buf {
			buf[i] = alphabet[rand.IntN(len(alphabet))]
		}
		out, err := json.Marshal(string(buf))
		if err != nil {
			panic(err) // a string always encodes
		}
		total += len(out)
	}
	return total
}
