package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/plan"
)

// The rollout's window as DRV029, DRV032 and plan --all judge it, on
// small fleets written here (each case a problem a hostile pass found).

// windowNode is a GPU node of Ubuntu 22.04 as node-feature-discovery
// labels it, with gpus GPUs and extra labels.
func windowNode(name string, gpus int, labels string) string {
	return fmt.Sprintf(`{"apiVersion": "v1", "kind": "Node", "metadata": {"name": %q, "labels": {"kubernetes.io/hostname": %q, "nvidia.com/gpu.present": "true",
 "feature.node.kubernetes.io/kernel-version.full": "5.15.0-119-generic", "feature.node.kubernetes.io/system-os_release.ID": "ubuntu",
 "feature.node.kubernetes.io/system-os_release.VERSION_ID": "22.04"%s}}, "status": {"allocatable": {"pods": "110", "nvidia.com/gpu": "%d"}}}`, name, name, labels, gpus)
}

// windowPolicy is a ClusterPolicy that rolls parallel nodes at once, at
// most unavailable.
func windowPolicy(parallel int, unavailable string) string {
	return fmt.Sprintf(`{"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"}, "spec": {"driver": {"enabled": true,
 "repository": "nvcr.io/nvidia", "image": "driver", "version": "580.95.05", "upgradePolicy": {"autoUpgrade": true, "maxParallelUpgrades": %d, "maxUnavailable": %s}}}}`, parallel, unavailable)
}

// windowDeployment is a Deployment of replicas pods of gpus GPUs each.
func windowDeployment(name string, replicas, gpus int) string {
	return fmt.Sprintf(`{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": %q, "namespace": "default"}, "spec": {"replicas": %d,
 "selector": {"matchLabels": {"app": %q}}, "template": {"metadata": {"labels": {"app": %q}}, "spec": {"containers": [{"name": "c", "image": "x",
 "resources": {"limits": {"nvidia.com/gpu": %d}}}]}}}}`, name, replicas, name, name, gpus)
}

// windowFleet writes the documents to a file and returns its path.
func windowFleet(t *testing.T, docs ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fleet.yaml")
	writeFile(t, p, strings.Join(docs, "\n---\n"))
	return p
}

func windowCheck(t *testing.T, file, rule string) []string {
	t.Helper()
	var out []string
	for _, f := range drvJSON(t, "check", "--matrix", gpuReqFile("driver-580.95.05.csv"), file).byRule(rule) {
		out = append(out, f.Object.String()+": "+f.Message)
	}
	return out
}

func windowPlan(t *testing.T, file string) plan.Rolling {
	t.Helper()
	r := drv(t, "plan", "--all", "--driver", "580.95.05", "--matrix", gpuReqFile("driver-580.95.05.csv"), "-o", "json", file)
	var rolled plan.Rolling
	if err := json.Unmarshal([]byte(r.stdout), &rolled); err != nil {
		t.Fatalf("%v\n%s", err, r.stderr)
	}
	return rolled
}

// Two nodes of a round lose their GPU pods before either returns: the
// second's replacement waits Pending for the first to be uncordoned, where
// it was once landed there at once and left unreported.
func TestARoundRemovesItsPodsBeforeAnyNodeReturns(t *testing.T) {
	f := windowFleet(t, windowPolicy(2, "2"), windowNode("n0", 1, ""), windowNode("n1", 1, ""), windowNode("n2", 1, ""), windowNode("n3", 1, ""),
		windowDeployment("d", 3, 1))
	var pending []string
	for _, o := range windowPlan(t, f).Nodes {
		pending = append(pending, o.Pending...)
	}
	if len(pending) == 0 || !strings.Contains(pending[0], "waits Pending only until n0 is uncordoned") {
		t.Errorf("pending: %q", pending)
	}
	if fs := windowCheck(t, f, "DRV032"); len(fs) != 1 || !strings.Contains(fs[0], "2 fit: 1 wait Pending") {
		t.Errorf("DRV032: %q", fs)
	}
}

// A window of 20 nodes out is judged at 20, not at a table's end.
func TestAWindowOfManyNodes(t *testing.T) {
	docs := []string{windowPolicy(0, "20"), windowDeployment("d", 30, 1)}
	for i := range 40 {
		docs = append(docs, windowNode(fmt.Sprintf("n%02d", i), 1, ""))
	}
	fs := windowCheck(t, windowFleet(t, docs...), "DRV032")
	if len(fs) != 1 || !strings.Contains(fs[0], "without the 20 that hold the most, 20 fit: 10 wait Pending") {
		t.Errorf("DRV032: %q", fs)
	}
}

// A node the operator does not roll (gpu.deploy.driver=false) is never
// out: its 8 GPUs hold what the window leaves short.
func TestTheWindowLeavesNodesTheOperatorDoesNotRoll(t *testing.T) {
	f := windowFleet(t, windowPolicy(1, "1"), windowNode("n0", 1, ""), windowNode("n1", 1, ""), windowNode("n2", 1, ""), windowNode("n3", 1, ""),
		windowNode("big", 8, `, "nvidia.com/gpu.deploy.driver": "false"`), windowDeployment("d", 5, 1))
	if fs := windowCheck(t, f, "DRV032"); len(fs) != 0 {
		t.Errorf("DRV032: %q", fs)
	}
}

// Two NVIDIADrivers roll side by side, one node each at a time: a gang
// of three pods of 8 GPUs on their four nodes loses two at once.
func TestTheWindowsOfScopesAddUp(t *testing.T) {
	driver := func(name, pool string) string {
		return fmt.Sprintf(`{"apiVersion": "nvidia.com/v1alpha1", "kind": "NVIDIADriver", "metadata": {"name": %q}, "spec": {"driverType": "gpu",
 "repository": "nvcr.io/nvidia", "image": "driver", "version": "580.95.05", "nodeSelector": {"pool": %q}}}`, name, pool)
	}
	f := windowFleet(t, `{"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"}, "spec": {"driver": {"enabled": true,
 "useNvidiaDriverCRD": true, "upgradePolicy": {"autoUpgrade": true, "maxParallelUpgrades": 1, "maxUnavailable": 1}}}}`,
		driver("da", "a"), driver("db", "b"),
		windowNode("a0", 8, `, "pool": "a"`), windowNode("a1", 8, `, "pool": "a"`), windowNode("b0", 8, `, "pool": "b"`), windowNode("b1", 8, `, "pool": "b"`),
		`{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "j", "namespace": "default"}, "spec": {"pytorchReplicaSpecs": {
 "Master": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}}},
 "Worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}}}}}}`)
	if fs := windowCheck(t, f, "DRV029"); len(fs) != 1 || !strings.Contains(fs[0], "takes up to 2 of its 4 admitted node(s) out at once") {
		t.Errorf("DRV029: %q", fs)
	}
}

// A Deployment's own running pods, in the files beside it, are its room,
// not room others took.
func TestAWorkloadsOwnPodsAreItsRoom(t *testing.T) {
	docs := []string{windowPolicy(1, "1"), windowDeployment("d", 4, 1)}
	for i := range 4 {
		docs = append(docs, windowNode(fmt.Sprintf("n%d", i), 1, ""), fmt.Sprintf(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "d-5f6-%d",
 "namespace": "default", "labels": {"app": "d", "pod-template-hash": "5f6"}, "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "d-5f6",
 "uid": "u", "controller": true}]}, "spec": {"nodeName": "n%d", "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}`, i, i))
	}
	if fs := windowCheck(t, windowFleet(t, docs...), "DRV032"); len(fs) != 1 || !strings.Contains(fs[0], "3 fit: 1 wait Pending") {
		t.Errorf("DRV032: %q", fs)
	}
}

// A LeaderWorkerSet whose leader goes to one pool and its workers to
// another is packed each pod where it may go: the leader's only node out,
// it loses its place.
func TestAGangWhoseMembersGoToDifferentPools(t *testing.T) {
	f := windowFleet(t, windowPolicy(1, "1"), windowNode("a0", 8, `, "pool": "a"`), windowNode("b0", 8, `, "pool": "b"`),
		windowNode("b1", 8, `, "pool": "b"`), windowNode("b2", 8, `, "pool": "b"`),
		`{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "l", "namespace": "default"}, "spec": {"replicas": 1,
 "leaderWorkerTemplate": {"size": 3, "leaderTemplate": {"spec": {"nodeSelector": {"pool": "a"}, "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}},
 "workerTemplate": {"spec": {"nodeSelector": {"pool": "b"}, "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}}}}}`)
	if fs := windowCheck(t, f, "DRV015"); len(fs) != 0 {
		t.Errorf("DRV015: %q", fs)
	}
	if fs := windowCheck(t, f, "DRV029"); len(fs) != 1 || !strings.Contains(fs[0], "2 of the 3 GPU pods") {
		t.Errorf("DRV029: %q", fs)
	}
	ds := windowPlan(t, f).Displaced
	if len(ds) != 1 || ds[0].First == nil || ds[0].First.Round != 1 || strings.Join(ds[0].First.Out, ",") != "a0" {
		t.Errorf("displaced: %+v", ds)
	}
}

// Pods of 5, 4, 3, 3, 3 and 2 GPUs fit two nodes of 10 (5+3+2, 4+3+3),
// which best fit alone misses: no DRV015 on two nodes, no DRV029 on three.
func TestAGangPackedBothWays(t *testing.T) {
	task := func(replicas, gpus int) string {
		return fmt.Sprintf(`{"replicas": %d, "name": "t%d", "template": {"spec": {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": %d}}}]}}}`, replicas, gpus, gpus)
	}
	job := `{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "v", "namespace": "default"}, "spec": {"tasks": [` +
		strings.Join([]string{task(1, 5), task(1, 4), task(3, 3), task(1, 2)}, ", ") + `]}}`
	two := windowFleet(t, windowNode("n0", 10, ""), windowNode("n1", 10, ""), job)
	if fs := windowCheck(t, two, "DRV015"); len(fs) != 0 {
		t.Errorf("two nodes: DRV015 %q", fs)
	}
	three := windowFleet(t, windowPolicy(1, "1"), windowNode("n0", 10, ""), windowNode("n1", 10, ""), windowNode("n2", 10, ""), job)
	if fs := windowCheck(t, three, "DRV029"); len(fs) != 0 {
		t.Errorf("three nodes: DRV029 %q", fs)
	}
}
