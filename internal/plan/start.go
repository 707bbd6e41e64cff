package plan

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/operator"
	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/placement"
)

// The upgrade library's states (k8s-operator-libs pkg/upgrade/consts.go)
// that the simulation starts from or ends in.
const (
	stateRequired    = "upgrade-required"
	statePodDeletion = "pod-deletion-required"
	stateDrain       = "drain-required"
	statePodRestart  = "pod-restart-required"
	stateValidation  = "validation-required"
	stateUncordon    = "uncordon-required"
	stateDone        = "upgrade-done"
	stateFailed      = "upgrade-failed"
)

// How a managed node enters the rollout.
type entry int

const (
	fresh     entry = iota // upgrade-required once the driver's template changes
	inSync                 // already runs the new driver: upgrade-done
	resumes                // already in the upgrade: goes on from its state, holding a slot
	keepsFail              // upgrade-failed with an out-of-date driver pod: stays, holding a slot
	untracked              // a state the library neither counts nor moves
)

// start is where a node stands when the new driver is rolled out.
type start struct {
	entry entry
	state string // the state it resumes from (resumes), or was read in
	note  string // why it is in sync, when not by its version
}

// startOf reads where node n stands, from its upgrade-state label, as
// ApplyState's steps take it (upgrade_state.go:364-486), once the driver
// DaemonSet's template changes to version:
//   - "" and upgrade-done: upgrade-required unless the driver pod is in
//     sync and no upgrade is requested (ProcessDoneOrUnknownNodes,
//     :488-556);
//   - upgrade-required: takes a slot as any such node, in sync or not
//     (ProcessUpgradeRequiredNodes, :587-633);
//   - cordon-required to uncordon-required: goes on from there;
//   - upgrade-failed: stays, unless its driver pod is in sync and Ready,
//     when it is uncordoned and done (ProcessUpgradeFailedNodes, :835-878);
//   - any other value (the requestor mode's states, a typo): counted in
//     no total (GetTotalManagedNodes, :1038-1054) and never moved.
//
// "In sync" is read as running version: the GFD driver label, since the
// pod's revision is that of the template before the change. "Ready" is
// the driver pod's Ready condition when the pod was read (a cluster), else
// the node's.
func startOf(m *placement.Model, n *corev1.Node, version string) start {
	state := n.Labels[nodefacts.UpgradeState]
	synced := nodefacts.Of(n).DriverVersion == version
	switch {
	case state == "" || state == stateDone:
		if synced && n.Annotations[nodefacts.UpgradeRequested] != "true" {
			return start{entry: inSync, state: state}
		}
		return start{entry: fresh, state: state}
	case state == stateRequired:
		return start{entry: fresh, state: state}
	case state == stateFailed && synced && driverPodReady(m, n):
		return start{entry: resumes, state: stateUncordon}
	case state == stateFailed:
		return start{entry: keepsFail, state: state}
	case operator.InProgress(state): // goes on from there, holding a slot
		return start{entry: resumes, state: state}
	}
	return start{entry: untracked, state: state}
}

// changeStart is where n stands under a change of the driver's
// configuration (RollingOptions.Change): a node the change leaves alone
// is in sync; any other is out of date, whatever its driver version, and
// goes on as startOf says; a restart-only one is marked so. The library
// never takes the restart-only path for a node whose upgrade was
// requested (shouldRestartOnly, upgrade_inplace.go:159-178).
func changeStart(n *corev1.Node, st start, sc *scope, changeOf func(string) (string, string)) start {
	kind, why := changeOf(n.Name)
	state := n.Labels[nodefacts.UpgradeState]
	if kind == change.NoOp && (state == "" || state == stateDone) {
		return start{entry: inSync, state: state, note: why}
	}
	if st.entry == inSync {
		st.entry = fresh
	}
	if st.entry == resumes && st.state == stateUncordon && state == stateFailed && kind != change.NoOp {
		st = start{entry: keepsFail, state: state} // its pod is not on the new template
	}
	sc.restart[n.Name] = kind == change.RestartOnly && n.Annotations[nodefacts.UpgradeRequested] != "true"
	return st
}

// removedBy says whether changeOf (a diff's) takes the node's driver pod
// away, and why.
func removedBy(changeOf func(string) (string, string), node string) (bool, string) {
	if changeOf == nil {
		return false, ""
	}
	kind, why := changeOf(node)
	return kind == change.Removed, why
}

// manualStart: the manual procedure upgrades every node not on version.
func manualStart(n *corev1.Node, version string) start {
	if nodefacts.Of(n).DriverVersion == version {
		return start{entry: inSync}
	}
	return start{entry: fresh}
}

// driverPodReady is the Ready condition of the driver pod on n, as read;
// without one (files), the node's.
func driverPodReady(m *placement.Model, n *corev1.Node) bool {
	if p := m.DriverPod(n.Name); p != nil {
		return p.Ready
	}
	return nodefacts.Ready(n)
}

// keepsCordon says whether the node stays cordoned once done: it was
// cordoned before its upgrade. For a node the upgrade already holds, its
// cordon is the library's, and the library's annotation says
// (upgrade_state.go:1003-1028); for the others, the node as read.
func keepsCordon(n *corev1.Node, st start) bool {
	if st.entry == resumes || st.entry == keepsFail {
		_, ok := n.Annotations[nodefacts.InitialUnschedulable]
		return ok
	}
	return n.Spec.Unschedulable
}
