package sched

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func node(name string, labels map[string]string, mod ...func(*corev1.Node)) *corev1.Node {
	l := map[string]string{"kubernetes.io/hostname": name}
	for k, v := range labels {
		l[k] = v
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
	for _, m := range mod {
		m(n)
	}
	return n
}

func require(key string, op corev1.NodeSelectorOperator, vals ...string) *corev1.PodSpec {
	return &corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: vals}},
		}}},
	}}}
}

const branch = "nvidia.com/cuda.driver.major"

func labNodes() []*corev1.Node {
	return []*corev1.Node{
		node("lab-node-0", map[string]string{branch: "550"}),
		node("lab-node-1", map[string]string{branch: "535"}),
		node("lab-node-2", map[string]string{branch: "550"}),
		node("lab-node-3", map[string]string{branch: "550"}),
	}
}

func TestGtAboveEveryBranchMatchesNothing(t *testing.T) {
	spec := require(branch, corev1.NodeSelectorOpGt, "560")
	f := NewFleet(labNodes(), KeysOf([]*corev1.PodSpec{spec}))
	p := f.Place(spec)
	if p.Eligible != 0 || p.Matching != 0 {
		t.Fatalf("eligible %d matching %d, want 0 and 0", p.Eligible, p.Matching)
	}
	if got, want := p.Message(), "0/4 nodes match: 4 node(s) didn't match Pod's node affinity/selector"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
}

func TestNodesSharingReferencedLabelsShareAClass(t *testing.T) {
	spec := require(branch, corev1.NodeSelectorOpIn, "550")
	f := NewFleet(labNodes(), KeysOf([]*corev1.PodSpec{spec}))
	if len(f.Classes) != 2 {
		t.Fatalf("%d classes, want 2 (550 and 535); hostname is not referenced", len(f.Classes))
	}
	if p := f.Place(spec); p.Eligible != 3 {
		t.Fatalf("eligible %d, want 3", p.Eligible)
	}
}

func TestCordonAndTaintsComeBeforeAffinity(t *testing.T) {
	nodes := []*corev1.Node{
		node("a", map[string]string{branch: "550"}, func(n *corev1.Node) { n.Spec.Unschedulable = true }),
		node("b", map[string]string{branch: "550"}, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}
		}),
		node("c", map[string]string{branch: "535"}),
		node("d", map[string]string{branch: "550"}, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}}
		}),
	}
	spec := require(branch, corev1.NodeSelectorOpIn, "550")
	p := NewFleet(nodes, KeysOf([]*corev1.PodSpec{spec})).Place(spec)
	want := map[string]int{ReasonUnschedulable: 1, ReasonTaint: 1, ReasonAffinity: 1}
	if fmt.Sprint(p.Reasons) != fmt.Sprint(want) || p.Eligible != 1 {
		t.Fatalf("reasons %v eligible %d, want %v and 1", p.Reasons, p.Eligible, want)
	}
	if p.Matching != 3 {
		t.Fatalf("matching %d, want 3 (affinity alone ignores cordon and taints)", p.Matching)
	}

	tolerant := spec.DeepCopy()
	tolerant.Tolerations = []corev1.Toleration{
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists},
	}
	f := NewFleet(nodes, KeysOf([]*corev1.PodSpec{tolerant}))
	if p := f.Place(tolerant); p.Eligible != 3 {
		t.Fatalf("with tolerations eligible %d, want 3", p.Eligible)
	}
}

func TestSameConstraintsShareOneResult(t *testing.T) {
	a, b := require(branch, corev1.NodeSelectorOpIn, "550"), require(branch, corev1.NodeSelectorOpIn, "550")
	b.Containers = []corev1.Container{{Name: "other", Image: "x"}}
	f := NewFleet(labNodes(), KeysOf([]*corev1.PodSpec{a, b}))
	if f.Place(a) != f.Place(b) {
		t.Fatal("specs with equal scheduling constraints were placed twice")
	}
	if f.Place(a) == f.Place(require(branch, corev1.NodeSelectorOpIn, "535")) {
		t.Fatal("different constraints shared a result")
	}
}

func TestSpecReadingOtherKeysIsStillRight(t *testing.T) {
	f := NewFleet(labNodes(), Keys{Labels: map[string]bool{}}) // built on no key
	spec := require("kubernetes.io/hostname", corev1.NodeSelectorOpIn, "lab-node-1", "lab-node-2")
	if p := f.Place(spec); p.Eligible != 2 {
		t.Fatalf("eligible %d, want 2", p.Eligible)
	}
}

func TestCordonToleranceAndNameOrder(t *testing.T) {
	spec := &corev1.PodSpec{}
	if ToleratesCordon(spec) {
		t.Fatal("a spec without tolerations tolerates a cordon")
	}
	spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists}}
	if !ToleratesCordon(spec) {
		t.Fatal("the unschedulable toleration does not tolerate a cordon")
	}
	nodes := []*corev1.Node{node("c", nil), node("a", nil), node("b", nil)}
	p := NewFleet(nodes, KeysOf(nil)).Place(&corev1.PodSpec{})
	var names []string
	for _, n := range p.EligibleByName() {
		names = append(names, n.Name)
	}
	if fmt.Sprint(names) != "[a b c]" {
		t.Fatalf("eligible %v, want [a b c]", names)
	}
}
