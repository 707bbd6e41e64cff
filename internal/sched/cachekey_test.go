package sched

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Specs whose filters read the same content share a key, whatever else
// they hold; any difference the filters read gives another key.
func TestCacheKeyIsTheFiltersContent(t *testing.T) {
	seconds := int64(300)
	base := func() *corev1.PodSpec {
		s := require("nvidia.com/gpu.product", corev1.NodeSelectorOpIn, "NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB")
		s.NodeSelector = map[string]string{"pool": "gpu", "zone": "a"}
		s.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		return s
	}
	same := base()
	same.Containers = []corev1.Container{{Name: "cuda", Image: "nvcr.io/nvidia/cuda:12.8.0-base-ubuntu24.04"}}
	same.NodeSelector = map[string]string{"zone": "a", "pool": "gpu"}
	if cacheKey(base()) != cacheKey(same) {
		t.Error("two specs with the same selector, affinity and tolerations have different keys")
	}
	variants := map[string]func(*corev1.PodSpec){
		"a selector's value":        func(s *corev1.PodSpec) { s.NodeSelector["zone"] = "b" },
		"where a key ends":          func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"poolg": "pu", "zone": "a"} },
		"one selector fewer":        func(s *corev1.PodSpec) { delete(s.NodeSelector, "zone") },
		"no affinity":               func(s *corev1.PodSpec) { s.Affinity = nil },
		"an empty node affinity":    func(s *corev1.PodSpec) { s.Affinity.NodeAffinity = &corev1.NodeAffinity{} },
		"an operator":               func(s *corev1.PodSpec) { requirement(s).Operator = corev1.NodeSelectorOpNotIn },
		"a value's order":           func(s *corev1.PodSpec) { v := requirement(s).Values; v[0], v[1] = v[1], v[0] },
		"a preferred term's weight": func(s *corev1.PodSpec) { prefer(s, 10) },
		"another preferred weight":  func(s *corev1.PodSpec) { prefer(s, 20) },
		"a toleration's seconds":    func(s *corev1.PodSpec) { s.Tolerations[0].TolerationSeconds = &seconds },
		"a toleration's effect":     func(s *corev1.PodSpec) { s.Tolerations[0].Effect = corev1.TaintEffectNoExecute },
		"one toleration more": func(s *corev1.PodSpec) {
			s.Tolerations = append(s.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
		},
		"no tolerations":             func(s *corev1.PodSpec) { s.Tolerations = nil },
		"a toleration's key":         func(s *corev1.PodSpec) { s.Tolerations[0].Key = "nvidia.com/gpu.present" },
		"a selector moved to a term": func(s *corev1.PodSpec) { s.NodeSelector = nil; requirement(s).Key = "pool" },
	}
	seen := map[string]string{cacheKey(base()): "the base"}
	for name, change := range variants {
		s := base()
		change(s)
		k := cacheKey(s)
		if other, ok := seen[k]; ok {
			t.Errorf("%s gives the key of %s", name, other)
		}
		seen[k] = name
	}
}

func requirement(s *corev1.PodSpec) *corev1.NodeSelectorRequirement {
	return &s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]
}

func prefer(s *corev1.PodSpec, weight int32) {
	s.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.PreferredSchedulingTerm{{
		Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}},
	}}
}
