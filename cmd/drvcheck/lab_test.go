package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/testcluster"
	"github.com/drvcheck/drvcheck/policy"
)

// The lab's node labels (seed, step 1) and the tags they make.
var labLabels = map[string]string{
	"lab-node-0": "nvidia.com/cuda.driver.major=550 nvidia.com/cuda.driver.minor=90 nvidia.com/cuda.driver.rev=07 feature.node.kubernetes.io/kernel-version.full=5.15.0-119-generic feature.node.kubernetes.io/system-os_release.ID=ubuntu feature.node.kubernetes.io/system-os_release.VERSION_ID=22.04",
	"lab-node-1": "nvidia.com/cuda.driver.major=535 nvidia.com/cuda.driver.minor=183 nvidia.com/cuda.driver.rev=06 feature.node.kubernetes.io/kernel-version.full=5.15.0-107-generic feature.node.kubernetes.io/system-os_release.ID=ubuntu feature.node.kubernetes.io/system-os_release.VERSION_ID=22.04",
	"lab-node-2": "nvidia.com/cuda.driver.major=550 nvidia.com/cuda.driver.minor=90 nvidia.com/cuda.driver.rev=07 feature.node.kubernetes.io/kernel-version.full=6.8.0-45-generic feature.node.kubernetes.io/system-os_release.ID=ubuntu feature.node.kubernetes.io/system-os_release.VERSION_ID=24.04",
}

var labTags = map[string]string{
	"lab-node-0": "550-5.15.0-119-generic-ubuntu22.04",
	"lab-node-1": "535-5.15.0-107-generic-ubuntu22.04",
	"lab-node-2": "550-6.8.0-45-generic-ubuntu24.04",
}

const drainBlocked = "Cannot evict pod as it would violate the pod's disruption budget"

// TestLab replays the seed lab on a real control plane, with kubectl as the
// lab uses it, and asserts drvcheck's view of the live cluster at each step.
func TestLab(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	kc := "--kubeconfig=" + c.Kubeconfig
	dir := t.TempDir()
	matrix := filepath.Join(dir, "support-matrix.csv")
	writeFile(t, matrix, "driver_branch,kernel,os_tag\n550,5.15.0-119-generic,ubuntu22.04\n535,5.15.0-107-generic,ubuntu22.04\n550,6.8.0-45-generic,ubuntu24.04\n")
	policyDir := writePolicy(t)
	scan := func() jsonReport {
		t.Helper()
		return drvJSON(t, "scan", kc, "--matrix="+matrix, "--policy="+policyDir)
	}

	// The lab's cluster: three fake nodes without GPU labels yet.
	for _, name := range []string{"lab-node-0", "lab-node-1", "lab-node-2"} {
		createFakeNode(t, c, name)
	}
	ctx := context.Background()
	if err := c.WaitNodesReady(ctx, "lab-node-0", "lab-node-1", "lab-node-2"); err != nil {
		t.Fatal(err)
	}

	step := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	step("1-label-and-tag", func(t *testing.T) {
		kubectl(t, c, "apply", "-f", labFile("k8s/namespace.yaml"))
		for node, labels := range labLabels {
			kubectl(t, c, append([]string{"label", "node", node, "--overwrite", "nvidia.com/gpu.present=true"}, strings.Fields(labels)...)...)
		}
		for node, want := range labTags {
			r := drv(t, "tag", node, kc)
			if r.code != 0 || r.stdout != want+"\n" {
				t.Errorf("tag %s: exit %d, %q %s; want %s", node, r.code, r.stdout, r.stderr, want)
			}
			// The same node read from the lab's manifests gives the same tag.
			if f := drv(t, "tag", node, labFile("k8s/nodes.yaml")); f.stdout != r.stdout {
				t.Errorf("tag %s: live %q, files %q", node, r.stdout, f.stdout)
			}
		}
		if r := drv(t, "tag", "lab-node-9", kc); r.code != exitError || !strings.Contains(r.stderr, "node lab-node-9 not found in cluster "+c.Host) {
			t.Errorf("tag of an unknown node: exit %d, %s", r.code, r.stderr)
		}
	})

	step("2-audit-ok", func(t *testing.T) {
		wantAudit(t, drv(t, "audit", kc, "--matrix="+matrix), 0, "OK\n")
	})

	step("3-node3-missing", func(t *testing.T) {
		kubectl(t, c, "apply", "-f", labFile("k8s/node3.yaml"))
		wantAudit(t, drv(t, "audit", kc, "--matrix="+matrix), 1, "lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04\n")
		// What a pull request adding nothing would meet: the live nodes
		// with the manifests' workloads.
		rep := drvJSON(t, "check", labFile("k8s/cuda12-job.yaml"), "--nodes-from-cluster", kc, "--matrix="+matrix)
		if got := rep.byRule("DRV001"); len(got) != 1 || got[0].Node != "lab-node-3" || got[0].File != "" {
			t.Errorf("check --nodes-from-cluster DRV001: %+v", got)
		}
		// The same without access to the cluster: a snapshot of its GPU
		// nodes, which keeps no address and no time, and check --nodes.
		snap := filepath.Join(dir, "nodes.yaml")
		if r := drv(t, "snapshot", "nodes", kc, "--file", snap); r.code != 0 || r.stdout != "" {
			t.Fatalf("snapshot nodes: exit %d %s", r.code, r.stderr)
		}
		data, err := os.ReadFile(snap)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{"addresses", "nodeInfo", "Time", "kubelet"} {
			if strings.Contains(string(data), leak) {
				t.Errorf("the snapshot keeps %s:\n%s", leak, data)
			}
		}
		fromSnap := drvJSON(t, "check", labFile("k8s/cuda12-job.yaml"), "--nodes", snap, "--matrix="+matrix)
		if got := fromSnap.byRule("DRV001"); len(got) != 1 || got[0].Node != "lab-node-3" || got[0].File != snap || got[0].Line == 0 {
			t.Errorf("check --nodes DRV001: %+v", got)
		}
		if len(fromSnap.Findings) != len(rep.Findings) {
			t.Errorf("check --nodes found %d, --nodes-from-cluster %d", len(fromSnap.Findings), len(rep.Findings))
		}
		// Step 6 needs pods on it: wait until it takes them.
		if err := c.WaitNodesReady(ctx, "lab-node-3"); err != nil {
			t.Fatal(err)
		}
	})

	step("4-matrix-row-ok", func(t *testing.T) {
		appendFile(t, matrix, "550,6.8.0-52-generic,ubuntu24.04\n")
		wantAudit(t, drv(t, "audit", kc, "--matrix="+matrix), 0, "OK\n")
	})

	step("5-cuda-pods", func(t *testing.T) {
		kubectl(t, c, "apply", "-f", labFile("k8s/cuda12-job.yaml"), "-f", labFile("k8s/cuda13-job.yaml"))
		waitFor(t, "cuda12-job Running on lab-node-0", func(ctx context.Context) (bool, error) {
			p, err := c.Client.CoreV1().Pods("gpu-drv").Get(ctx, "cuda12-job", metav1.GetOptions{})
			return err == nil && p.Spec.NodeName == "lab-node-0" && p.Status.Phase == corev1.PodRunning, err
		})
		var message string
		waitFor(t, "the scheduler's PodScheduled=False on cuda13-job", func(ctx context.Context) (bool, error) {
			p, err := c.Client.CoreV1().Pods("gpu-drv").Get(ctx, "cuda13-job", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			cond := inventory.PodCondition(p, corev1.PodScheduled)
			if cond == nil {
				return false, nil
			}
			message = cond.Message
			return cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable, nil
		})
		if !strings.Contains(message, "didn't match Pod's node affinity/selector") {
			t.Errorf("cuda13-job PodScheduled message: %q", message)
		}
		// drvcheck's live facts carry the scheduler's own message.
		rep := scan()
		unsched := liveFindings(rep, "unschedulable: ")
		if want := map[string]string{"gpu-drv/cuda13-job": "unschedulable: " + message}; !equalMaps(unsched, want) {
			t.Errorf("scan's unschedulable pods %v, want %v", unsched, want)
		}
		got := objects(rep.byRule("DRV010"))
		if want := []string{"Pod/gpu-drv/cuda13-job"}; !slices.Equal(got, want) {
			t.Errorf("DRV010 on %v; the scheduler left exactly %v pending", got, want)
		}
	})

	step("6-trainer-pdb-blocks-drain", func(t *testing.T) {
		kubectl(t, c, "apply", "-f", labFile("k8s/trainer.yaml"), "-f", labFile("k8s/pdb.yaml"))
		waitTrainers(t, c, 4)
		waitBudget(t, c, 0)
		out, errOut, err := c.Kubectl(ctx, "drain", "lab-node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=20s")
		if err == nil || !strings.Contains(errOut, drainBlocked) {
			t.Fatalf("kubectl drain lab-node-1 should be refused by the budget: %v\n%s%s", err, out, errOut)
		}
		if n, _ := c.Client.CoreV1().Nodes().Get(ctx, "lab-node-1", metav1.GetOptions{}); n == nil || !n.Spec.Unschedulable {
			t.Error("a refused drain still leaves the node cordoned")
		}
		rep := scan()
		blocking := liveFindings(rep, "no disruption allowed")
		if got := blocking["gpu-drv/trainer-pdb"]; !strings.Contains(got, "lab-node-1") {
			t.Errorf("scan's live budget facts: %v", blocking)
		}
		if got := objects(rep.byRule("DRV020")); !slices.Equal(got, []string{"PodDisruptionBudget/gpu-drv/trainer-pdb"}) {
			t.Errorf("DRV020 on %v while kubectl drain is refused", got)
		}
	})

	step("7-upgrade-order", func(t *testing.T) {
		// Before the image is secured and the budget has room, plan names
		// both, in that order.
		r := drv(t, "plan", "lab-node-1", "--driver", "550.90.07", kc, "--matrix="+matrix)
		img, budget := strings.Index(r.stdout, "550-5.15.0-107-generic-ubuntu22.04"), strings.Index(r.stdout, "lower trainer-pdb minAvailable from 4 to 3")
		if r.code != exitFindings || img < 0 || budget < img {
			t.Errorf("plan lab-node-1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		// (1) secure the image, (2) make room in the budget.
		appendFile(t, matrix, "550,5.15.0-107-generic,ubuntu22.04\n")
		kubectl(t, c, "patch", "pdb", "trainer-pdb", "-n", "gpu-drv", "--type=merge", "-p", `{"spec":{"minAvailable":3}}`)
		waitBudget(t, c, 1)
		rep := scan()
		if blocking := liveFindings(rep, "no disruption allowed"); len(blocking) != 0 {
			t.Errorf("budget still blocking after the patch: %v", blocking)
		}
		if got := rep.byRule("DRV020"); len(got) != 0 {
			t.Errorf("DRV020 after the patch, when the drain succeeds: %+v", got)
		}
		// Now every step of the plan can run.
		if r := drv(t, "plan", "lab-node-1", "--driver", "550.90.07", kc, "--matrix="+matrix); r.code != 0 {
			t.Errorf("plan lab-node-1 after the fixes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		// (3) the same drain now succeeds.
		out := kubectl(t, c, "drain", "lab-node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=20s")
		if !strings.Contains(out, "evicting pod gpu-drv/trainer-") || !strings.Contains(out, "node/lab-node-1 drained") {
			t.Errorf("drain output:\n%s", out)
		}
		// (4) the new driver's labels, (5) uncordon.
		kubectl(t, c, "label", "node", "lab-node-1", "--overwrite",
			"nvidia.com/cuda.driver.major=550", "nvidia.com/cuda.driver.minor=90", "nvidia.com/cuda.driver.rev=07")
		kubectl(t, c, "uncordon", "lab-node-1")
		waitTrainers(t, c, 4)
		wantAudit(t, drv(t, "audit", kc, "--matrix="+matrix), 0, "OK\n")
	})

	step("8-closing-report", func(t *testing.T) {
		kubectl(t, c, "label", "node", "lab-node-1", "--overwrite", "nvidia.com/gpu-driver-upgrade-state=upgrade-done")
		got := closingReport(t, kc, matrix, policyDir)
		want := "NODES=4\nSKEW=0\nLAB_NODE_1_TAG=550-5.15.0-107-generic-ubuntu22.04\nMATRIX_ROWS=5\nUPGRADE_STATE=upgrade-done\n"
		if got != want {
			t.Errorf("closing report:\n%s\nwant:\n%s", got, want)
		}
	})
}

// closingReport computes the lab's five lines from drvcheck's own output.
func closingReport(t *testing.T, kc, matrix, policyDir string) string {
	rep := drvJSON(t, "scan", kc, "--matrix="+matrix, "--policy="+policyDir)
	audit := drv(t, "audit", kc, "--matrix="+matrix)
	if audit.code == exitError {
		t.Fatalf("audit: %s", audit.stderr)
	}
	skew := strings.Count(audit.stdout, " MISSING ")
	tag := drv(t, "tag", "lab-node-1", kc)
	if tag.code != 0 {
		t.Fatalf("tag lab-node-1: %s", tag.stderr)
	}
	rows, err := catalog.ReadMatrix(nil, matrix)
	if err != nil {
		t.Fatal(err)
	}
	st := drv(t, "status", kc, "--matrix="+matrix, "-o", "json")
	var status struct {
		Nodes []struct{ Node, State string }
	}
	if err := json.Unmarshal([]byte(st.stdout), &status); st.code == exitError || err != nil {
		t.Fatalf("status: exit %d %v: %s", st.code, err, st.stderr)
	}
	state := ""
	for _, r := range status.Nodes {
		if r.Node == "lab-node-1" {
			state = r.State
		}
	}
	return fmt.Sprintf("NODES=%d\nSKEW=%d\nLAB_NODE_1_TAG=%s\nMATRIX_ROWS=%d\nUPGRADE_STATE=%s\n",
		rep.Summary.GPUNodes, skew, strings.TrimSpace(tag.stdout), len(rows), state)
}

func wantAudit(t *testing.T, r result, code int, stdout string) {
	t.Helper()
	if r.code != code || r.stdout != stdout {
		t.Errorf("audit: exit %d, stdout %q, stderr %q; want exit %d, %q", r.code, r.stdout, r.stderr, code, stdout)
	}
}

// waitTrainers waits for n Running trainer pods on n different nodes.
func waitTrainers(t *testing.T, c *testcluster.Cluster, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d trainer pods Running, one per node", n), func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods("gpu-drv").List(ctx, metav1.ListOptions{LabelSelector: "app=trainer"})
		if err != nil {
			return false, err
		}
		nodes := map[string]bool{}
		for _, p := range pods.Items {

			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && inventory.PodReady(&p) {
				nodes[p.Spec.NodeName] = true
			}
		}
		return len(nodes) == n, nil
	})
}

// waitBudget waits until the disruption controller has processed the
// current trainer-pdb and allows exactly allowed disruptions.
func waitBudget(t *testing.T, c *testcluster.Cluster, allowed int32) {
	t.Helper()
	waitFor(t, fmt.Sprintf("trainer-pdb to allow %d disruptions", allowed), func(ctx context.Context) (bool, error) {
		b, err := c.Client.PolicyV1().PodDisruptionBudgets("gpu-drv").Get(ctx, "trainer-pdb", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return b.Status.ObservedGeneration == b.Generation && b.Status.CurrentHealthy == 4 && b.Status.DisruptionsAllowed == allowed, nil
	})
}

// liveFindings returns the test rule's findings whose message starts with
// prefix, by namespace/name.
func liveFindings(rep jsonReport, prefix string) map[string]string {
	out := map[string]string{}
	for _, f := range rep.Findings {
		if f.Rule == "LIVE900" && strings.HasPrefix(f.Message, prefix) {
			out[f.Object.Namespace+"/"+f.Object.Name] = f.Message
		}
	}
	return out
}

func objects(fs []policy.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Object.String())
	}
	slices.Sort(out)
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func createFakeNode(t *testing.T, c *testcluster.Cluster, name string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        name,
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		Labels:      map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "type": "kwok"},
	}}
	if _, err := c.Client.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}
