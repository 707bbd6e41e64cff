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

// InProgress says whether a node in the upgrade state counts as in
// progress: every state GetTotalManagedNodes counts but unknown ("" ),
// upgrade-done and upgrade-required (k8s-operator-libs@7d667fbaa7ac
// pkg/upgrade/upgrade_state.go:1038-1066). upgrade-failed counts; a value
// the library does not know counts nowhere.
func InProgress(state string) bool { return inProgressStates[state] }

var inProgressStates = map[string]bool{
	"cordon-required": true, "wait-for-jobs-required": true, "pod-deletion-required": true, "drain-required": true,
	"pod-restart-required": true, "validation-required": true, "uncordon-required": true, "upgrade-failed": true,
}
