package load

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestParallelReturnsTheLowestFailure: every call below the first failure
// runs to its end, whatever order the workers took the calls in; the error
// is the lowest failure's; a call after it that started sees its context
// cancelled (each waits for that here, and the test would time out), and
// those not started are skipped: at most one per other worker runs.
func TestParallelReturnsTheLowestFailure(t *testing.T) {
	const n, bad = 500, 137
	for round := range 20 {
		var mu sync.Mutex
		var gaveUp atomic.Bool // one wait timed out: the others need not
		ran := map[int]bool{}
		err := parallel(context.Background(), n, func(ctx context.Context, i int) error {
			mu.Lock()
			ran[i] = true
			mu.Unlock()
			switch {
			case i == bad:
				return fmt.Errorf("call %d", i)
			case i > bad && !gaveUp.Load():
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(10 * time.Second):
					gaveUp.Store(true)
					return fmt.Errorf("call %d, after the failure, was never cancelled", i)
				}
			}
			return nil
		})
		if gaveUp.Load() {
			t.Fatalf("round %d: a call after the failure was never cancelled", round)
		}
		if err == nil || err.Error() != fmt.Sprintf("call %d", bad) {
			t.Fatalf("round %d: %v, want the error of call %d", round, err, bad)
		}
		after := 0
		for i := range n {
			switch {
			case i < bad && !ran[i]:
				t.Fatalf("round %d: call %d, before the failure, did not run", round, i)
			case i > bad && ran[i]:
				after++
			}
		}
		if after > runtime.GOMAXPROCS(0)-1 {
			t.Fatalf("round %d: %d calls after the failure ran; at most one per other worker may", round, after)
		}
	}
}

// TestParallelRunsEveryCallOnce: without a failure each call runs once.
func TestParallelRunsEveryCallOnce(t *testing.T) {
	const n = 10_000
	counts := make([]int32, n)
	var mu sync.Mutex
	if err := parallel(context.Background(), n, func(_ context.Context, i int) error {
		mu.Lock()
		counts[i]++
		mu.Unlock()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, c := range counts {
		if c != 1 {
			t.Fatalf("call %d ran %d times", i, c)
		}
	}
	if err := parallel(context.Background(), 0, func(context.Context, int) error { return errors.New("called") }); err != nil {
		t.Fatalf("no calls: %v", err)
	}
}
