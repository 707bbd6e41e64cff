package testcluster

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestFakeNodeRunsPod proves the parts work together: kwok makes a fake
// node Ready, the node lifecycle controller lifts its not-ready taint, the
// scheduler binds a pod to it, and kwok runs the pod.
func TestFakeNodeRunsPod(t *testing.T) {
	c := Start(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        "fake-0",
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		Labels:      map[string]string{"kubernetes.io/hostname": "fake-0"},
	}}
	if _, err := c.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitNodesReady(ctx, "fake-0"); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	if _, err := c.Client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := Poll(ctx, "pod running on fake-0", func(ctx context.Context) (bool, error) {
		p, err := c.Client.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.Spec.NodeName == "fake-0" && p.Status.Phase == corev1.PodRunning, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := c.Kubectl(ctx, "get", "pod", "p", "-o", "jsonpath={.status.phase}")
	if err != nil || out != "Running" {
		t.Fatalf("kubectl get pod: %q, %v", out, err)
	}
}
