package renderer

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/internal/sandbox"
)

// Run is what a run's renders share: the opener of its files, each
// render's timeout (--render-timeout), and the pool of children that
// renders them (nil: each render in a child of its own).
type Run struct {
	FS      *repofs.FS
	Timeout time.Duration
	Pool    *sandbox.Pool
}

// envelope is a render job as the sandbox's child receives it: the run's
// roots and what is left of its limits, so that the child reads through
// the same opener, and the job itself.
type envelope struct {
	Roots  []string        `json:"roots"`
	Limits repofs.Limits   `json:"limits"`
	Job    json.RawMessage `json:"job"`
}

// answer is what a render job answers: it says how many bytes the job
// read and made, which count against the run's --max-input-size.
type answer interface{ size() int64 }

// runJob runs the sandbox job called name on job, decodes its answer into
// ans and counts its size against the run's limits; where names the chart
// or kustomization in errors.
func runJob(ctx context.Context, where, name string, job any, ans answer, r Run) error {
	raw, err := json.Marshal(job)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	lim := r.FS.Limits()
	lim.Total = max(lim.Total-r.FS.Used(), 1)
	req, err := json.Marshal(envelope{Roots: r.FS.Roots(), Limits: lim, Job: raw})
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	var out []byte
	if r.Pool != nil {
		out, err = r.Pool.Run(ctx, where, name, req)
	} else {
		out, err = sandbox.Run(ctx, where, name, req, r.Limits())
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, ans); err != nil {
		return fmt.Errorf("%s: the sandbox's answer: %w", where, err)
	}
	return r.FS.Count(where, ans.size())
}

// Limits bound each render of a run: its --render-timeout, and an answer
// no larger than the largest file the run may read.
func (r Run) Limits() sandbox.Limits {
	return sandbox.Limits{Timeout: r.Timeout, Answer: r.FS.Limits().File}
}

// jobFunc makes f a sandbox job: the request decoded, an opener made of
// its roots and limits, the answer encoded.
func jobFunc[J, A any](f func(*J, *repofs.FS) (*A, error)) sandbox.Func {
	return func(req []byte) ([]byte, error) {
		var env envelope
		if err := json.Unmarshal(req, &env); err != nil {
			return nil, err
		}
		fsys, err := repofs.New(env.Roots, env.Limits)
		if err != nil {
			return nil, err
		}
		var job J
		if err := json.Unmarshal(env.Job, &job); err != nil {
			return nil, err
		}
		answer, err := f(&job, fsys)
		if err != nil {
			return nil, err
		}
		return json.Marshal(answer)
	}
}
