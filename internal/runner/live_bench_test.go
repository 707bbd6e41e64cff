package runner

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/policy"
)

// BenchmarkEvaluateLive is the part of a scan after the lists arrive, for
// a fleet the size of make bench-live's: 5,000 GPU nodes, 20,000 pods.
func BenchmarkEvaluateLive(b *testing.B) {
	ctx := context.Background()
	engine, err := policy.New(ctx, policy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	inv := liveFleet(5000, 20000)
	cat := catalog.New()
	cat.Add("matrix.csv", []string{"550-5.15.0-119-generic-ubuntu22.04"})
	b.ResetTimer()
	for b.Loop() {
		if _, err := Evaluate(ctx, engine, inv, cat, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func liveFleet(nodes, pods int) *inventory.Inventory {
	inv := &inventory.Inventory{Live: true}
	kernels := []string{"5.15.0-119-generic", "5.15.0-107-generic", "6.8.0-45-generic"}
	for i := range nodes {
		inv.Nodes = append(inv.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("gpu-%05d", i),
			Labels: map[string]string{
				"kubernetes.io/hostname": fmt.Sprintf("gpu-%05d", i), "kubernetes.io/os": "linux",
				"nvidia.com/gpu.present": "true", "nvidia.com/cuda.driver.major": "550", "nvidia.com/cuda.driver.minor": "90",
				"nvidia.com/cuda.driver.rev": "07", "feature.node.kubernetes.io/kernel-version.full": kernels[i%3],
				"feature.node.kubernetes.io/system-os_release.ID": "ubuntu", "feature.node.kubernetes.io/system-os_release.VERSION_ID": "22.04",
			},
		}})
	}
	for i := range 20 {
		one := intstr.FromInt32(1)
		inv.PDBs = append(inv.PDBs, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "trainer-pdb", Namespace: fmt.Sprintf("bench-%02d", i)},
			Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "trainer"}}},
		})
	}
	for i := range pods {
		inv.Pods = append(inv.Pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("trainer-%05d", i), Namespace: fmt.Sprintf("bench-%02d", i%20),
				Labels: map[string]string{"app": "trainer"}},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("gpu-%05d", i%nodes), Containers: []corev1.Container{{Name: "c", Image: "nvcr.io/nvidia/pytorch:24.07-py3"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}
	inv.Objects = nodes + pods + 20
	return inv
}
