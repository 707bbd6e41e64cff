package sched

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestRequirementsAndTheirPaths(t *testing.T) {
	s := &corev1.PodSpec{
		NodeSelector: map[string]string{"z": "1", "a": "2"},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n"}}}},
				{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "r0", Operator: corev1.NodeSelectorOpExists},
					{Key: "r1", Operator: corev1.NodeSelectorOpGt, Values: []string{"5"}},
				}},
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight:     1,
				Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "p", Operator: corev1.NodeSelectorOpLt, Values: []string{"3"}}}},
			}},
		}},
	}
	var got []string
	for _, r := range Requirements(s) {
		got = append(got, fmt.Sprintf("%s %s %s %v", r.From, r.Key, r.Operator, r.Path))
	}
	want := []string{
		"nodeSelector a In [nodeSelector a]",
		"nodeSelector z In [nodeSelector z]",
		"required r0 Exists [affinity nodeAffinity requiredDuringSchedulingIgnoredDuringExecution nodeSelectorTerms 1 matchExpressions 0]",
		"required r1 Gt [affinity nodeAffinity requiredDuringSchedulingIgnoredDuringExecution nodeSelectorTerms 1 matchExpressions 1]",
		"preferred p Lt [affinity nodeAffinity preferredDuringSchedulingIgnoredDuringExecution 0 preference matchExpressions 0]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestValueProblem(t *testing.T) {
	cases := []struct {
		op     corev1.NodeSelectorOperator
		values []string
		want   string // "" or a part of the problem
	}{
		{corev1.NodeSelectorOpGt, []string{"560"}, ""},
		{corev1.NodeSelectorOpLt, []string{"07"}, ""},
		{corev1.NodeSelectorOpGt, []string{"22.04"}, `value "22.04" is not an integer`},
		{corev1.NodeSelectorOpGt, []string{"1", "2"}, "Gt needs exactly one value, has 2"},
		{corev1.NodeSelectorOpLt, nil, "Lt needs exactly one value, has 0"},
		{corev1.NodeSelectorOpGt, []string{"-5"}, `"-5"`}, // an integer, but not a label value
		{corev1.NodeSelectorOpIn, []string{"22.04"}, ""},  // In compares strings
	}
	for _, c := range cases {
		got := Requirement{Key: "k", Operator: c.op, Values: c.values}.ValueProblem()
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s %v: %q, want %q", c.op, c.values, got, c.want)
		}
	}
}
