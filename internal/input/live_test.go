package input

import (
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

func TestLiveFacts(t *testing.T) {
	isController := true
	running := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer-1", Namespace: "gpu", Labels: map[string]string{"app": "trainer"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "trainer-abc", Controller: &isController}}},
		Spec: corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		}},
	}
	pending := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "cuda13-job", Namespace: "gpu", Labels: map[string]string{"app": "trainer"}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/4 nodes are available"},
		}},
	}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "elsewhere", Labels: map[string]string{"app": "trainer"}},
		Spec: corev1.PodSpec{NodeName: "n9"}}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer-pdb", Namespace: "gpu", Generation: 2},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "trainer"}}},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 4, ExpectedPods: 2,
			Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Reason: policyv1.InsufficientPodsReason}}},
	}
	noSelector := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "nil-selector", Namespace: "gpu"}}
	inv := &inventory.Inventory{Live: true, Pods: []*corev1.Pod{running, pending, other}, PDBs: []*policyv1.PodDisruptionBudget{pdb, noSelector}}

	doc := Build(inv, nodefacts.All(inv.Nodes), catalog.New(), Options{})
	if _, err := ast.InterfaceToValue(doc); err != nil {
		t.Fatalf("document is not JSON-shaped: %v", err)
	}
	live := doc["cluster"].(map[string]any)
	pods := live["pods"].([]any)
	if len(pods) != 3 {
		t.Fatalf("%d pods, want 3", len(pods))
	}
	want0 := map[string]any{
		"object": docval.Ref("Pod", "gpu", "trainer-1"), "node": "n1", "phase": "Running", "ready": true, "terminating": false,
		"controller_kind": "ReplicaSet", "controller_name": "trainer-abc",
		"scheduled": "True", "scheduled_reason": "", "scheduled_message": "",
	}
	if !reflect.DeepEqual(pods[0], want0) {
		t.Errorf("pod 0:\n got %v\nwant %v", pods[0], want0)
	}
	want1 := map[string]any{
		"object": docval.Ref("Pod", "gpu", "cuda13-job"), "node": "", "phase": "Pending", "ready": false, "terminating": false,
		"controller_kind": "", "controller_name": "",
		"scheduled": "False", "scheduled_reason": "Unschedulable", "scheduled_message": "0/4 nodes are available",
	}
	if !reflect.DeepEqual(pods[1], want1) {
		t.Errorf("pending pod:\n got %v\nwant %v", pods[1], want1)
	}
	if p2 := pods[2].(map[string]any); p2["scheduled"] != "" || p2["phase"] != "" {
		t.Errorf("pod without status: %v", p2)
	}
	budgets := live["budgets"].([]any)
	b := budgets[0].(map[string]any)
	wantB := map[string]any{
		"object": docval.Ref("PodDisruptionBudget", "gpu", "trainer-pdb"), "disruptions_allowed": 0, "current_healthy": 1, "desired_healthy": 4,
		"expected_pods": 2, "generation": int64(2), "observed_generation": int64(1), "processed": false, "reason": "InsufficientPods",
		// the pod of another namespace is not the budget's, whatever its labels
		"pods":  []any{"trainer-1", "cuda13-job"},
		"nodes": []any{"n1"},
	}
	if !reflect.DeepEqual(b, wantB) {
		t.Errorf("budget:\n got %v\nwant %v", b, wantB)
	}
	nb := budgets[1].(map[string]any)
	if len(nb["pods"].([]any)) != 0 || len(nb["nodes"].([]any)) != 0 {
		t.Errorf("a budget without selector selects nothing: %v", nb)
	}

	inv.Live = false
	if _, ok := Build(inv, nodefacts.All(inv.Nodes), catalog.New(), Options{})["cluster"]; ok {
		t.Error("input.cluster in file mode")
	}
}
