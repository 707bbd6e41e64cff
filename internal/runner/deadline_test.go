package runner

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A step that never looks at the context still ends at its deadline, with
// the deadline's cause; one that finishes first gives its own result.
func TestUntilDoneEndsAtTheDeadline(t *testing.T) {
	cause := errors.New("the run did not finish within 50ms (--timeout)")
	ctx, cancel := context.WithDeadlineCause(context.Background(), time.Now().Add(50*time.Millisecond), cause)
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	_, err := untilDone(ctx, func() (int, error) {
		<-release // a document build that outlasts the run
		return 1, nil
	})
	if !errors.Is(err, cause) {
		t.Errorf("err = %v, want the deadline's cause", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("returned after %s", waited)
	}

	v, err := untilDone(context.Background(), func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Errorf("a step that finishes: %d, %v", v, err)
	}
}
