package testcluster

import (
	"context"
	"strings"
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

// TestStartNamesAnExitedProcess: a component that dies while the cluster
// starts fails the start at once, with its log, instead of after the
// start's four minutes (the wait CI once timed out in).
func TestStartNamesAnExitedProcess(t *testing.T) {
	c := Start(t, Options{})
	c.proc("kube-controller-manager").stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	err := c.waitStarted(ctx)
	if err == nil || !strings.Contains(err.Error(), "kube-controller-manager exited") {
		t.Fatalf("waitStarted with the controller manager stopped: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("waitStarted took %s to see the exit", time.Since(start))
	}
}
