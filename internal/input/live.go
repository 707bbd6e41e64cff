package input

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
)

// addLive adds what only a live cluster knows (input.cluster): where each
// pod runs, its phase and readiness, why the scheduler left it pending, and
// each budget's status as the disruption controller computed it, with the
// pods it selects and their nodes. Rules read these instead of modelling
// them, so a live scan says what the cluster says.
func addLive(doc map[string]any, inv *inventory.Inventory) {
	if !inv.Live {
		return
	}
	doc["cluster"] = map[string]any{
		"pods":    livePods(inv.Pods),
		"budgets": liveBudgets(inv.PDBs, inv.Pods),
	}
}

// livePods has one flat entry per pod: a fleet has tens of thousands, and
// every nested map costs on the way into OPA.
func livePods(pods []*corev1.Pod) []any {
	out := make([]any, 0, len(pods))
	for _, p := range pods {
		e := map[string]any{
			"object":            docval.Ref("Pod", p.Namespace, p.Name),
			"node":              p.Spec.NodeName,
			"phase":             string(p.Status.Phase),
			"ready":             inventory.PodReady(p),
			"terminating":       p.DeletionTimestamp != nil,
			"controller_kind":   "",
			"controller_name":   "",
			"scheduled":         "",
			"scheduled_reason":  "",
			"scheduled_message": "",
		}
		if c := metav1.GetControllerOfNoCopy(p); c != nil {
			e["controller_kind"], e["controller_name"] = c.Kind, c.Name
		}
		if c := inventory.PodCondition(p, corev1.PodScheduled); c != nil {
			e["scheduled"], e["scheduled_reason"], e["scheduled_message"] = string(c.Status), c.Reason, c.Message
		}
		out = append(out, e)
	}
	return out
}

func liveBudgets(pdbs []*policyv1.PodDisruptionBudget, pods []*corev1.Pod) []any {
	byNS := map[string][]*corev1.Pod{}
	for _, p := range pods {
		byNS[p.Namespace] = append(byNS[p.Namespace], p)
	}
	out := make([]any, 0, len(pdbs))
	for _, b := range pdbs {
		selected, nodes := selectedPods(b, byNS[b.Namespace])
		s := b.Status
		out = append(out, map[string]any{
			"object":              docval.Ref("PodDisruptionBudget", b.Namespace, b.Name),
			"disruptions_allowed": int(s.DisruptionsAllowed),
			"current_healthy":     int(s.CurrentHealthy),
			"desired_healthy":     int(s.DesiredHealthy),
			"expected_pods":       int(s.ExpectedPods),
			"generation":          b.Generation,
			"observed_generation": s.ObservedGeneration,
			"processed":           s.ObservedGeneration >= b.Generation,
			"reason":              disruptionReason(b),
			"pods":                selected,
			"nodes":               nodes,
		})
	}
	return out
}

// selectedPods lists the names of the pods of the budget's namespace that
// its selector matches (the disruption controller's and the eviction API's
// pod set; a nil selector matches nothing, an empty one everything), and
// the sorted nodes they run on.
func selectedPods(b *policyv1.PodDisruptionBudget, pods []*corev1.Pod) (selected, nodes []any) {
	selected = []any{}
	sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
	if err != nil {
		sel = labels.Nothing() // the API server skips invalid selectors too
	}
	seen := map[string]bool{}
	var names []string
	for _, p := range pods {
		if !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		selected = append(selected, p.Name)
		if n := p.Spec.NodeName; n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return selected, docval.Strings(names)
}

// disruptionReason is the reason of the DisruptionAllowed condition:
// SufficientPods, InsufficientPods, or SyncFailed when the controller could
// not compute the budget.
func disruptionReason(b *policyv1.PodDisruptionBudget) string {
	for _, c := range b.Status.Conditions {
		if c.Type == policyv1.DisruptionAllowedCondition {
			return c.Reason
		}
	}
	return ""
}
