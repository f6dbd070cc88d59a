package ready

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestSet(t *testing.T) {
	var s Set
	if len(s.Waiting()) != 0 {
		t.Fatal("new set is waiting")
	}
	s.Add("postgres")
	s.Add("kafka")
	s.Add("kafka")
	if got := s.Waiting(); !reflect.DeepEqual(got, []string{"postgres", "kafka"}) {
		t.Fatalf("waiting = %v", got)
	}
	s.Done("postgres")
	if got := s.Waiting(); !reflect.DeepEqual(got, []string{"kafka"}) {
		t.Fatalf("waiting = %v", got)
	}
}

func TestValue(t *testing.T) {
	var v Value[error]
	if _, ok := v.Get(); ok {
		t.Fatal("empty value is set")
	}
	want := errors.New("x")
	v.Set(want)
	if got, ok := v.Get(); !ok || got != want {
		t.Fatalf("Get = %v, %v", got, ok)
	}
}

func TestRetry(t *testing.T) {
	FirstBackoff = time.Millisecond
	calls := 0
	got, err := Retry(context.Background(), "thing", func(context.Context) (int, error) {
		calls++
		if calls < 3 {
			return 0, errors.New("not yet")
		}
		return 42, nil
	})
	if err != nil || got != 42 || calls != 3 {
		t.Fatalf("Retry = %v, %v after %d calls", got, err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Retry(ctx, "thing", func(context.Context) (int, error) { return 0, errors.New("never") }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Retry with a canceled context = %v", err)
	}
}

func TestRetryUpToCapsTheBackoff(t *testing.T) {
	first := FirstBackoff
	FirstBackoff = 200 * time.Millisecond
	defer func() { FirstBackoff = first }()
	calls := 0
	started := time.Now()
	_, err := RetryUpTo(context.Background(), "thing", time.Millisecond, func(context.Context) (int, error) {
		calls++
		if calls < 5 {
			return 0, errors.New("not yet")
		}
		return 1, nil
	})
	// Four waits of 1 ms, not 200 ms and more.
	if took := time.Since(started); err != nil || took > 500*time.Millisecond {
		t.Fatalf("RetryUpTo = %v after %v", err, took)
	}
}
