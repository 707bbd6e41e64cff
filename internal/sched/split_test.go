package sched

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSpecsSplitTheFleetOnlyForThemselves(t *testing.T) {
	f := NewFleet(labNodes(), Keys{Labels: map[string]bool{branch: true}})
	pinned := require(corev1.LabelHostname, corev1.NodeSelectorOpIn, "lab-node-2")
	p := f.Place(pinned)
	// 535 | 550 split into lab-node-2 and "another hostname"
	if len(p.Classes) != 3 || p.Eligible != 1 {
		t.Fatalf("pinned: %d classes, %d eligible; want 3 and 1", len(p.Classes), p.Eligible)
	}
	if len(f.Classes) != 2 {
		t.Fatalf("the fleet's own classes changed: %d, want 2", len(f.Classes))
	}
	byBranch := f.Place(require(branch, corev1.NodeSelectorOpIn, "535"))
	if len(byBranch.Classes) != 2 || byBranch.Eligible != 1 {
		t.Fatalf("by branch: %d classes, %d eligible; want 2 and 1", len(byBranch.Classes), byBranch.Eligible)
	}
}

func TestCordonedNodeStillAdmits(t *testing.T) {
	nodes := []*corev1.Node{
		node("a", map[string]string{branch: "550"}, func(n *corev1.Node) { n.Spec.Unschedulable = true }),
		node("b", map[string]string{branch: "550"}, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoExecute}}
		}),
	}
	spec := require(branch, corev1.NodeSelectorOpIn, "550")
	p := NewFleet(nodes, KeysOf([]*corev1.PodSpec{spec})).Place(spec)
	got := map[string]bool{}
	for _, v := range p.Classes {
		for _, n := range v.Class.Nodes {
			got[n.Name] = v.Admits()
		}
	}
	if !got["a"] || got["b"] {
		t.Fatalf("admits %v, want a (cordoned) but not b (untolerated NoExecute)", got)
	}
}

func TestDomainsCountHostnameLabels(t *testing.T) {
	nodes := labNodes()
	nodes[3].Labels[corev1.LabelHostname] = "lab-node-2" // two nodes, one hostname value
	p := NewFleet(nodes, Keys{}).Place(&corev1.PodSpec{})
	if d := p.Domains(HostnameKey); d.Count != 3 || d.Unlimited {
		t.Fatalf("domains %+v, want 3 and limited", d)
	}
	delete(nodes[0].Labels, corev1.LabelHostname)
	p = NewFleet(nodes, Keys{}).Place(&corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}})
	if d := p.Domains(HostnameKey); !d.Unlimited {
		t.Fatalf("domains %+v: a node without the key never rejects, want unlimited", d)
	}
}

// Gt compares values, so a split on a Gt key keeps every value apart, while
// In only tells named values from the others.
func TestViewsKeepWhatTheSpecCanTellApart(t *testing.T) {
	nodes := []*corev1.Node{
		node("a", map[string]string{"rank": "1", "zone": "z1"}),
		node("b", map[string]string{"rank": "2", "zone": "z2"}),
		node("c", map[string]string{"rank": "3", "zone": "z3"}),
		node("d", map[string]string{}),
	}
	f := NewFleet(nodes, Keys{})
	if p := f.Place(require("rank", corev1.NodeSelectorOpGt, "1")); len(p.Classes) != 4 || p.Eligible != 2 {
		t.Fatalf("Gt: %d classes, %d eligible; want 4 and 2", len(p.Classes), p.Eligible)
	}
	if p := f.Place(require("zone", corev1.NodeSelectorOpIn, "z1")); len(p.Classes) != 3 || p.Eligible != 1 {
		t.Fatalf("In: %d classes, %d eligible; want 3 (z1, other zone, no zone) and 1", len(p.Classes), p.Eligible)
	}
	if p := f.Place(require("zone", corev1.NodeSelectorOpNotIn, "z1")); p.Eligible != 3 {
		t.Fatalf("NotIn: %d eligible, want 3 (NotIn matches a node without the key)", p.Eligible)
	}
	byName := &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"c"}}},
		}}},
	}}}
	if p := f.Place(byName); len(p.Classes) != 2 || p.Eligible != 1 {
		t.Fatalf("matchFields: %d classes, %d eligible; want 2 and 1", len(p.Classes), p.Eligible)
	}
}

// Pods pinned to their own node each look at two classes per fleet class
// (their node, any other), never at every node.
func TestPinnedSpecsDoNotScanEveryNode(t *testing.T) {
	var nodes []*corev1.Node
	for i := range 1000 {
		nodes = append(nodes, node(fmt.Sprintf("n%d", i), map[string]string{branch: []string{"535", "550"}[i%2]}))
	}
	f := NewFleet(nodes, Keys{Labels: map[string]bool{branch: true}})
	for i := range 200 {
		spec := require(corev1.LabelHostname, corev1.NodeSelectorOpIn, fmt.Sprintf("n%d", i))
		if p := f.Place(spec); p.Eligible != 1 || p.Total != 1000 {
			t.Fatalf("pinned to n%d: %d/%d eligible", i, p.Eligible, p.Total)
		}
	}
	if f.evals > 200*3 {
		t.Fatalf("%d filter evaluations for 200 pinned specs on 1000 nodes, want at most 600", f.evals)
	}
}
