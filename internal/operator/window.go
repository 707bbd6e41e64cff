package operator

// Window is one scope's counts that GetUpgradesAvailable reads
// (k8s-operator-libs common_manager.go): how many nodes may start now.
type Window struct {
	Total          int // managed nodes of the scope
	Required       int // in upgrade-required, skip-labelled ones included
	InProgress     int // started and not done: failed and stuck nodes too
	Unavailable    int // cordoned or NotReady now
	MaxParallel    int // 0: no limit
	MaxUnavailable int
}

// Available is the library's formula, step by step.
func (w Window) Available() int {
	avail := w.MaxParallel - w.InProgress
	if w.MaxParallel == 0 {
		avail = w.Required
	}
	avail = min(avail, w.MaxUnavailable)
	switch {
	case w.Unavailable >= w.MaxUnavailable:
		return 0
	case w.MaxUnavailable < w.Total && w.Unavailable+avail > w.MaxUnavailable:
		return w.MaxUnavailable - w.Unavailable
	}
	return avail
}
