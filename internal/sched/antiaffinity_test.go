package sched

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func template(terms ...corev1.PodAffinityTerm) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "trainer", "rev": "7"}},
		Spec: corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: terms,
		}}},
	}
}

func selector(l map[string]string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: l}
}

func TestSelfAntiAffinity(t *testing.T) {
	self := selector(map[string]string{"app": "trainer"})
	cases := []struct {
		name string
		term corev1.PodAffinityTerm
		ns   map[string]string
		want bool
	}{
		{"own labels, own namespace", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self}, nil, true},
		{"other topology", corev1.PodAffinityTerm{TopologyKey: corev1.LabelTopologyZone, LabelSelector: self}, nil, false},
		{"other labels", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: selector(map[string]string{"app": "db"})}, nil, false},
		{"nil selector selects nothing", corev1.PodAffinityTerm{TopologyKey: HostnameKey}, nil, false},
		{"other namespaces", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, Namespaces: []string{"x"}}, nil, false},
		{"listed namespace", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, Namespaces: []string{"x", "ml"}}, nil, true},
		{"empty namespaceSelector is every namespace", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, NamespaceSelector: &metav1.LabelSelector{}}, nil, true},
		{"namespaceSelector on labels", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, NamespaceSelector: selector(map[string]string{"team": "ml"})}, map[string]string{"team": "ml"}, true},
		{"namespaceSelector missing", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, NamespaceSelector: selector(map[string]string{"team": "ml"})}, nil, false},
		{"namespaceSelector on the name label", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, NamespaceSelector: selector(map[string]string{corev1.LabelMetadataName: "ml"})}, nil, true},
		{"matchLabelKeys keep replicas", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, MatchLabelKeys: []string{"rev"}}, nil, true},
		{"mismatchLabelKeys exclude replicas", corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: self, MismatchLabelKeys: []string{"rev"}}, nil, false},
	}
	for _, c := range cases {
		other := corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: selector(map[string]string{"app": "db"})}
		i, got := SelfAntiAffinity(template(other, c.term), "ml", c.ns, HostnameKey)
		if got != c.want || got && i != 1 {
			t.Errorf("%s: got %v at %d, want %v at 1", c.name, got, i, c.want)
		}
	}
	if _, got := SelfAntiAffinity(&corev1.PodTemplateSpec{}, "ml", nil, HostnameKey); got {
		t.Error("no affinity at all selects itself")
	}
}

// AntiTerms merges matchLabelKeys and mismatchLabelKeys the pod carries
// into the selector, and names the term and field of an invalid selector.
func TestAntiTerms(t *testing.T) {
	term := corev1.PodAffinityTerm{TopologyKey: HostnameKey, LabelSelector: selector(map[string]string{"app": "trainer"}),
		MatchLabelKeys: []string{"rev", "absent"}, MismatchLabelKeys: []string{"app"}, Namespaces: []string{"x"}}
	terms, err := AntiTerms(&template(term).Spec, map[string]string{"app": "trainer", "rev": "7"})
	if err != nil || len(terms) != 1 {
		t.Fatalf("terms %+v, error %v", terms, err)
	}
	at := terms[0]
	if got := at.Selector.String(); got != "app=trainer,app notin (trainer),rev in (7)" {
		t.Errorf("selector %q", got)
	}
	if at.Key != HostnameKey || !at.Covers("ml", "x", nil) || at.Covers("ml", "ml", nil) {
		t.Errorf("term %+v covers the wrong namespaces", at)
	}
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Foo"}}}
	for _, c := range []struct {
		term corev1.PodAffinityTerm
		want string
	}{
		{corev1.PodAffinityTerm{LabelSelector: bad}, "podAntiAffinity term 1: labelSelector: "},
		{corev1.PodAffinityTerm{LabelSelector: term.LabelSelector, NamespaceSelector: bad}, "podAntiAffinity term 1: namespaceSelector: "},
	} {
		_, err := AntiTerms(&template(term, c.term).Spec, nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want it to start %q", err, c.want)
		}
	}
}
