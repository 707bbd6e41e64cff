package runner

import "context"

// untilDone returns step's result, or the context's cause once the
// context is done, whichever comes first: a step that does not watch the
// context (building the input document and the drain model, seconds on a
// large fleet and more on a hostile one) still ends the run at --timeout.
// The step is left to finish on its own goroutine; the run ends with the
// error, and the process with it. A run already past its deadline does
// not start the step.
func untilDone[T any](ctx context.Context, step func() (T, error)) (T, error) {
	if ctx.Err() != nil {
		var zero T
		return zero, context.Cause(ctx)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := step()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}
