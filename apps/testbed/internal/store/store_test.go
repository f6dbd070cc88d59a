package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"scalelab/testbed/internal/config"
)

func TestNewActivity(t *testing.T) {
	a := newActivity()
	if _, err := uuid.Parse(a.id); err != nil {
		t.Errorf("id %q: %v", a.id, err)
	}
	if _, err := uuid.Parse(a.userID); err != nil || a.userID == a.id {
		t.Errorf("user id %q: %v", a.userID, err)
	}
	if time.Since(a.createdAt) > time.Minute {
		t.Errorf("created at %v", a.createdAt)
	}
	var data map[string]string
	if err := json.Unmarshal([]byte(a.data), &data); err != nil || len(data["payload"]) != 100 {
		t.Errorf("data %s: want a JSON object with a 100-character payload", a.data)
	}
}

func TestOpenWithoutStorage(t *testing.T) {
	if _, err := Open(context.Background(), config.Defaults()); err == nil {
		t.Fatal("Open with TESTBED_STORAGE=none succeeded")
	}
}
