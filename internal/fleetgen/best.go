package fleetgen

import "time"

// Best runs f n times and returns the shortest run, the least noisy
// measure on a shared machine, or f's first error. The speed budgets
// (make bench) compare such times.
func Best(n int, f func() error) (time.Duration, error) {
	var best time.Duration
	for i := range n {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		if d := time.Since(start); i == 0 || d < best {
			best = d
		}
	}
	return best, nil
}
