package plan

// window is one scope's counts that GetUpgradesAvailable reads
// (k8s-operator-libs common_manager.go): how many nodes may start now.
type window struct {
	total          int // managed nodes of the scope
	required       int // in upgrade-required, skip-labelled ones included
	inProgress     int // started and not done: failed and stuck nodes too
	unavailable    int // cordoned or NotReady now
	maxParallel    int // 0: no limit
	maxUnavailable int
}

// available is the library's formula, step by step.
func (w window) available() int {
	avail := w.maxParallel - w.inProgress
	if w.maxParallel == 0 {
		avail = w.required
	}
	avail = min(avail, w.maxUnavailable)
	switch {
	case w.unavailable >= w.maxUnavailable:
		return 0
	case w.maxUnavailable < w.total && w.unavailable+avail > w.maxUnavailable:
		return w.maxUnavailable - w.unavailable
	}
	return avail
}
