package drain

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/operator"
)

// Phase names, as the upgrade policy spells them.
const (
	PodDeletionPhase = "podDeletion"
	DrainPhase       = "drain"
)

// PodDeletion is the policy's podDeletion: the GPU pods (and those of its
// podSelector), every one of which must go.
func PodDeletion(p operator.Policy) Phase {
	or, _ := labels.Parse(p.PodDeletion.PodSelector)
	return Phase{Name: PodDeletionPhase, GPU: true, Or: or, Strict: true, TimeoutSeconds: p.PodDeletion.TimeoutSeconds,
		Flags: Flags{Force: p.PodDeletion.Force, DeleteEmptyDir: p.PodDeletion.DeleteEmptyDir}}
}

// FallbackDrain is the policy's drain: the pods of its podSelector that
// are not drain-skipped.
func FallbackDrain(p operator.Policy) Phase {
	return Phase{Name: DrainPhase, Selector: p.DrainSelector(), TimeoutSeconds: p.Drain.TimeoutSeconds,
		Flags: Flags{Force: p.Drain.Force, DeleteEmptyDir: p.Drain.DeleteEmptyDir}}
}

// ManualDrain is the lab's kubectl drain --ignore-daemonsets of every pod,
// which waits for a budget without end.
func ManualDrain(p operator.Policy) Phase {
	return Phase{Name: DrainPhase, Flags: Flags{Force: p.Drain.Force, DeleteEmptyDir: p.Drain.DeleteEmptyDir}}
}

// UpgradePhases are the phases that remove pods from a node in an upgrade
// under p, in order: the manual drain, or GPU-pod deletion and, when
// enabled, the drain it falls back to.
func UpgradePhases(p operator.Policy) []Phase {
	if p.Manual {
		return []Phase{ManualDrain(p)}
	}
	out := []Phase{PodDeletion(p)}
	if p.Drain.Enabled {
		out = append(out, FallbackDrain(p))
	}
	return out
}
