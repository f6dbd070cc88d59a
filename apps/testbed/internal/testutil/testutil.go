// Package testutil holds helpers shared by the testbed's tests.
package testutil

import (
	"testing"
	"time"
)

// Eventually polls cond until it holds or 20 s pass; it waits for a state, it does not assert timing.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
