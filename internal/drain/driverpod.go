package drain

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// DriverPod is the GPU Operator's driver pod on node as read, or nil (files
// list none), told by its labels (nodefacts.DriverPodLabels).
func (m *Model) DriverPod(node string) *Pod {
	for _, p := range m.onNode[node] {
		if nodefacts.DriverPodLabels(p.Labels) {
			return p
		}
	}
	return nil
}

// DriverTaint is a NoSchedule or NoExecute taint of node that its driver
// pod does not tolerate. The pod runs because it came first (a NoSchedule
// taint evicts nothing), but the DaemonSet controller no longer counts the
// node in desiredNumberScheduled, and the upgrade library's BuildState
// fails on the difference (k8s-operator-libs@7d667fbaa7ac
// pkg/upgrade/upgrade_state.go:240-245). Without a driver pod nothing is
// known.
func (m *Model) DriverTaint(node string) (corev1.Taint, bool) {
	p, n := m.DriverPod(node), m.node[node]
	if p == nil || n == nil {
		return corev1.Taint{}, false
	}
	return sched.UntoleratedTaint(n, p.Spec.Tolerations)
}
