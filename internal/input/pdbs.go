package input

import (
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/drvcheck/drvcheck/internal/drain"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/placement"
)

// pdbEntries describes every PodDisruptionBudget with its numbers as the
// disruption controller has them (cluster) or would compute them (files).
func pdbEntries(m *placement.Model) []any {
	out := make([]any, 0, len(m.Budgets))
	for _, b := range m.Budgets {
		c := b.Count
		change := drain.GenericChange(b)
		e := map[string]any{
			"name":                          b.Name(),
			"namespace":                     b.Ref.Namespace,
			"object":                        docval.Ref(b.Ref.Kind, b.Ref.Namespace, b.Ref.Name),
			"selector":                      b.SelectorText(),
			"rule":                          b.Rule(),
			"min_available":                 intOrString(b.PDB.Spec.MinAvailable),
			"max_unavailable":               intOrString(b.PDB.Spec.MaxUnavailable),
			"unhealthy_pod_eviction_policy": evictionPolicy(b),
			"expected":                      int(c.Expected),
			"desired":                       int(c.Desired),
			"healthy":                       int(c.Healthy),
			"allowed":                       int(c.Allowed),
			"status":                        b.Status,
			"status_note":                   b.StatusNote,
			"sync_error":                    c.SyncErr,
			"pods":                          int(b.Size()),
			"templates":                     refs(b.Templates),
			"nodes":                         docval.Strings(b.Nodes()),
			"unmanaged_pods":                unmanaged(b),
			"overlapping_pods":              overlapping(b),
			"change":                        change.Text,
			"change_field":                  docval.Pointer(change.Field),
		}
		out = append(out, e)
	}
	return out
}

// intOrString is "4" or "50%", or "" when unset.
func intOrString(v *intstr.IntOrString) string {
	if v == nil {
		return ""
	}
	return v.String()
}

func evictionPolicy(b *drain.Budget) string {
	if p := b.PDB.Spec.UnhealthyPodEvictionPolicy; p != nil {
		return string(*p)
	}
	return ""
}

func unmanaged(b *drain.Budget) []any {
	out := []any{}
	for _, p := range b.Pods {
		if p.Controller == "" {
			out = append(out, p.Key())
		}
	}
	return out
}

// overlapping names each pod another budget selects too, with those budgets.
func overlapping(b *drain.Budget) []any {
	out := []any{}
	for _, p := range b.Overlapping() {
		var others []string
		for _, o := range p.Budgets {
			if o != b {
				others = append(others, o.Name())
			}
		}
		out = append(out, map[string]any{"pod": p.Key(), "workload": loadRef(p.Workload), "budgets": docval.Strings(others)})
	}
	return out
}

func refs(rs []object.Ref) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = loadRef(r)
	}
	return out
}

func loadRef(r object.Ref) map[string]any { return docval.Ref(r.Kind, r.Namespace, r.Name) }
