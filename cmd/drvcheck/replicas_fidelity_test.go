package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// The replicas scenarios of the fidelity suite (docs/fidelity.md): DRV032
// says how many of a Deployment's GPU pods wait Pending while the driver
// rollout's window of nodes is out; on the control plane the Deployment
// runs, the window's nodes are cordoned and their GPU pods deleted, as the
// upgrade library's GPU-pod deletion does, and the scheduler places the
// replacements the Deployment controller makes, or leaves them Pending.

type replicasScenario struct {
	name  string
	files []string // under testdata/gpu-requests, read with clusterpolicy-rollout.yaml
}

var replicasScenarios = []replicasScenario{
	{name: "vLLM's Deployment filling its GPUs", files: []string{"vllm-deployment.yaml"}},
	{name: "vLLM's Deployment with a node to spare", files: []string{"vllm-deployment.yaml", "vllm-deployment-room.yaml"}},
	{name: "vLLM's tensor-parallel Deployment on nodes of 8 and 2 GPUs", files: []string{"vllm-deployment-tp2.yaml"}},
}

func TestFidelityReplicasInTheWindow(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	for _, sc := range replicasScenarios {
		t.Run(sc.name, func(t *testing.T) { runReplicasScenario(t, c, sc) })
	}
}

func runReplicasScenario(t *testing.T, c *testcluster.Cluster, sc replicasScenario) {
	var files []string
	for _, f := range sc.files {
		files = append(files, gpuReqFile(f))
	}
	pods, pending, k := predictPending(t, append(files, gpuReqFile("clusterpolicy-rollout.yaml")))
	var nodes []map[string]any
	var deployment map[string]any
	for _, f := range files {
		for _, o := range readObjects(t, f) {
			switch o["kind"] {
			case "Node":
				nodes = append(nodes, fakeNode(o))
			case "Deployment":
				deployment = o
			}
		}
	}
	dir := t.TempDir()
	applyObjects(t, c, dir, "nodes", nodes)
	waitNodesReady(t, c, len(nodes))
	defer cleanReplicasScenario(t, c)
	applyObjects(t, c, dir, "deployment", []map[string]any{deployment})
	running := waitReplicas(t, c, pods, func(ps []corev1.Pod) bool { return len(bound(ps)) == pods })
	out := mostHeld(running, k)
	for _, node := range out {
		kubectl(t, c, "cordon", node)
		for _, p := range running {
			if p.Spec.NodeName == node {
				kubectl(t, c, "-n", p.Namespace, "delete", "pod", p.Name, "--grace-period=0", "--force")
			}
		}
	}
	after := waitReplicas(t, c, pods, settled)
	got := pods - len(bound(after))
	t.Logf("%d pods, %v out: drvcheck %d Pending; the scheduler: %d", pods, out, pending, got)
	if got != pending {
		t.Errorf("with %v out: DRV032 says %d of %d pods wait Pending, the scheduler leaves %d", out, pending, pods, got)
	}
}

// mostHeld are the k nodes that hold the most of the pods, as DRV032
// takes them out at worst, by name among equals.
func mostHeld(ps []corev1.Pod, k int) []string {
	held := map[string]int{}
	for _, p := range ps {
		held[p.Spec.NodeName]++
	}
	nodes := slices.Sorted(maps.Keys(held))
	slices.SortStableFunc(nodes, func(a, b string) int { return held[b] - held[a] })
	return nodes[:min(k, len(nodes))]
}

// predictPending reads drvcheck's answer from files: the Deployment's
// pods, how many DRV032 says wait Pending (0 without a finding), and the
// nodes out at once.
func predictPending(t *testing.T, files []string) (pods, pending, k int) {
	t.Helper()
	args := append([]string{"input", "--matrix", gpuReqFile("driver-580.95.05.csv")}, files...)
	r := drv(t, args...)
	var doc struct {
		Workloads []struct {
			Replicas    int
			RolloutRoom *struct {
				Pods      int
				Out, Held int
			} `json:"rollout_room"`
		}
		Upgrade struct {
			Scopes []struct {
				MaxUnavailable int `json:"max_unavailable"`
				Policy         struct {
					MaxParallel int `json:"max_parallel_upgrades"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Upgrade.Scopes) != 1 {
		t.Fatalf("input: %v\n%s", err, r.stderr)
	}
	s := doc.Upgrade.Scopes[0]
	k = s.MaxUnavailable
	if s.Policy.MaxParallel > 0 {
		k = min(k, s.Policy.MaxParallel)
	}
	for _, w := range doc.Workloads {
		pods += w.Replicas
		if w.RolloutRoom != nil {
			pending = w.RolloutRoom.Pods - w.RolloutRoom.Held
			if w.RolloutRoom.Out != k {
				t.Fatalf("the scopes take %d nodes out at once, rollout_room %d", k, w.RolloutRoom.Out)
			}
		}
	}
	checked := drvJSON(t, append([]string{"check", "--matrix", gpuReqFile("driver-580.95.05.csv")}, files...)...)
	if fs := checked.byRule("DRV032"); (len(fs) > 0) != (pending > 0) {
		t.Fatalf("DRV032 %+v, but the document says %d wait Pending", fs, pending)
	}
	return pods, pending, k
}

// waitReplicas waits until the default namespace holds n live pods that
// done accepts, and returns them.
func waitReplicas(t *testing.T, c *testcluster.Cluster, n int, done func([]corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	var live []corev1.Pod
	waitFor(t, fmt.Sprintf("%d pods settled", n), func(ctx context.Context) (bool, error) {
		ps, err := c.Client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		live = live[:0]
		for _, p := range ps.Items {
			if p.DeletionTimestamp == nil {
				live = append(live, p)
			}
		}
		return len(live) == n && done(live), nil
	})
	return live
}

// settled: every pod is bound, or the scheduler has said it fits nowhere.
func settled(ps []corev1.Pod) bool {
	for _, p := range ps {
		if p.Spec.NodeName != "" {
			continue
		}
		unschedulable := false
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
				unschedulable = true
			}
		}
		if !unschedulable {
			return false
		}
	}
	return true
}

func bound(ps []corev1.Pod) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range ps {
		if p.Spec.NodeName != "" {
			out = append(out, p)
		}
	}
	return out
}

// cleanReplicasScenario deletes the Deployment, its pods and the nodes.
func cleanReplicasScenario(t *testing.T, c *testcluster.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Client.AppsV1().Deployments("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Deployment's pods gone", func(ctx context.Context) (bool, error) {
		zero := int64(0)
		_ = c.Client.CoreV1().Pods("default").DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		ps, err := c.Client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		return err == nil && len(ps.Items) == 0, err
	})
	cleanGangScenario(t, c)
}
