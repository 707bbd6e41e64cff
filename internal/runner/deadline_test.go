package runner

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/plan"
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

// plan --all's simulation is bounded by the run's deadline too: on the lab,
// Roll gives plan.Roll's answer while the run has time, and the deadline's
// cause once it has passed, without simulating.
func TestRollEndsAtTheDeadline(t *testing.T) {
	cfg := Config{Paths: []string{"../../testdata/lab"}, Registry: config.Registry{Matrix: []string{"../../testdata/lab/support-matrix.csv"}}}
	m, res, err := UpgradeFacts(context.Background(), cfg, Files(context.Background(), cfg), "", "550.90.07")
	if err != nil {
		t.Fatal(err)
	}
	opt := plan.RollingOptions{Options: plan.Options{Driver: "550.90.07"}}
	if opt.Policy, err = operator.Policies(res.Profile, operator.PolicyFlags{}); err != nil {
		t.Fatal(err)
	}
	want, err := plan.Roll(m, AfterOf(res), opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Roll(context.Background(), m, AfterOf(res), opt)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Roll within the deadline: %v, %+v; want %+v", err, got, want)
	}
	if len(got.Nodes) == 0 {
		t.Fatal("the lab's rollout has no nodes: the comparison above proves nothing")
	}

	cause := errors.New("the run did not finish within 1s (--timeout)")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if r, err := Roll(ctx, m, AfterOf(res), opt); !errors.Is(err, cause) || r != nil {
		t.Fatalf("Roll past the deadline: %+v, %v; want the deadline's cause", r, err)
	}
}
