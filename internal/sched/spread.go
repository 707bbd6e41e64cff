package sched

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// SpreadTerm is one topologySpreadConstraint with whenUnsatisfiable
// DoNotSchedule, parsed as the API describes its fields (k8s.io/api
// v0.37.2 core/v1/types.go:4919-5033); internal/placement applies it.
type SpreadTerm struct {
	Key        string          // topologyKey
	MaxSkew    int             // at least 1
	MinDomains int             // 1 when unset
	Selector   labels.Selector // labelSelector (nil selects no pod), with matchLabelKeys merged
	// HonorAffinity: nodeAffinityPolicy is Honor (the default);
	// HonorTaints: nodeTaintsPolicy is Honor (Ignore is the default).
	HonorAffinity, HonorTaints bool
	SelfMatch                  bool // the selector selects the pod itself
}

// SpreadTerms parses the DoNotSchedule constraints of spec for pods with
// podLabels; ScheduleAnyway only scores nodes, and is left out. An invalid
// selector is an error: the API server rejects it.
func SpreadTerms(spec *corev1.PodSpec, podLabels map[string]string) ([]SpreadTerm, error) {
	var out []SpreadTerm
	for i, c := range spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("topologySpreadConstraints[%d]: labelSelector: %w", i, err)
		}
		if c.LabelSelector == nil {
			sel = labels.Nothing() // a nil selector matches no pod (metav1.LabelSelectorAsSelector)
		}
		for _, k := range c.MatchLabelKeys {
			if v, ok := podLabels[k]; ok {
				r, err := labels.NewRequirement(k, selection.In, []string{v})
				if err != nil {
					return nil, fmt.Errorf("topologySpreadConstraints[%d]: matchLabelKeys: %w", i, err)
				}
				sel = sel.Add(*r)
			}
		}
		t := SpreadTerm{Key: c.TopologyKey, MaxSkew: max(int(c.MaxSkew), 1), MinDomains: 1, Selector: sel,
			HonorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
			HonorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
			SelfMatch:     sel.Matches(labels.Set(podLabels))}
		if c.MinDomains != nil {
			t.MinDomains = int(*c.MinDomains)
		}
		out = append(out, t)
	}
	return out, nil
}
