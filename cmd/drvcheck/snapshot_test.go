package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// labWorkloads are the lab's manifests without its nodes.
func labWorkloads(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"namespace.yaml", "cuda12-job.yaml", "cuda13-job.yaml", "pdb.yaml", "trainer.yaml"} {
		out = append(out, filepath.Join(lab, "k8s", f))
	}
	return out
}

// findingKeys are the findings without their file and line, which differ
// between a snapshot and the lab's node manifests.
func findingKeys(rep jsonReport) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Rule+" "+f.Object.String()+" "+f.Message)
	}
	slices.Sort(out)
	return out
}

// A snapshot of the lab's nodes in place of their manifests gives the lab's
// findings, with the nodes' lines in the snapshot.
func TestSnapshotNodesRoundTrip(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "nodes.yaml")
	if r := drv(t, "snapshot", "nodes", lab, "--file", snap); r.code != 0 {
		t.Fatalf("snapshot: exit %d %s", r.code, r.stderr)
	}
	want := drvJSON(t, "check", lab, "--matrix", matrix)
	got := drvJSON(t, append([]string{"check", "--nodes", snap, "--matrix", matrix}, labWorkloads(t)...)...)
	if !slices.Equal(findingKeys(got), findingKeys(want)) {
		t.Errorf("with the snapshot:\n%s\nwith the lab's nodes:\n%s", strings.Join(findingKeys(got), "\n"), strings.Join(findingKeys(want), "\n"))
	}
	for _, f := range got.byRule("DRV001") {
		if f.File != snap || f.Line == 0 {
			t.Errorf("DRV001 at %s:%d, want a line of %s", f.File, f.Line, snap)
		}
	}
	// Standard output gives the same file.
	data, err := os.ReadFile(snap)
	if r := drv(t, "snapshot", "nodes", lab); err != nil || r.stdout != string(data) {
		t.Errorf("stdout and --file differ: %v\n%s", err, r.stdout)
	}
}

func TestSnapshotNodesRefuses(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "nodes.yaml")
	writeFile(t, old, "previous snapshot\n")
	noGPU := filepath.Join(dir, "cpu.yaml")
	writeFile(t, noGPU, "apiVersion: v1\nkind: Node\nmetadata: {name: cpu-1}\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "nodes", noGPU, "--file", old}, "snapshot: no GPU nodes (nvidia.com/gpu.present=true) among 1 nodes; nothing written"},
		{[]string{"snapshot", "pods", lab}, "snapshot: want snapshot nodes [PATH...]"},
		{append([]string{"check", "--nodes", filepath.Join(lab, "k8s", "pdb.yaml")}, labWorkloads(t)...), "holds 0 Nodes and 1 other objects; want Nodes only"},
		{[]string{"check", lab, "--nodes", old, "--nodes-from-cluster"}, "check: --nodes and --nodes-from-cluster both say where the nodes come from"},
	}
	for _, c := range cases {
		r := drv(t, c.args...)
		if r.code != exitError || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %s; want %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if data, _ := os.ReadFile(old); string(data) != "previous snapshot\n" {
		t.Errorf("a failed snapshot replaced the file: %q", data)
	}
}

// The pull-request loop's case: a GPU node and a CPU pool, and a web
// Deployment that selects the pool. The files give no finding, and a
// snapshot of their nodes must give none either: it keeps every node. A
// --gpu-only snapshot leaves the pool out, and then the check says it
// does not know where web may run, at info, instead of "0 nodes match".
func TestSnapshotKeepsTheNodesAffinityMaySelect(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.yaml")
	writeFile(t, nodes, `apiVersion: v1
kind: Node
metadata:
  name: gpu-0
  labels:
    kubernetes.io/hostname: gpu-0
    nvidia.com/gpu.present: "true"
    nvidia.com/cuda.driver-version.major: "550"
    nvidia.com/cuda.driver-version.minor: "90"
    nvidia.com/cuda.driver-version.revision: "07"
    feature.node.kubernetes.io/kernel-version.full: 5.15.0-119-generic
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "22.04"
---
apiVersion: v1
kind: Node
metadata:
  name: cpu-0
  labels: {kubernetes.io/hostname: cpu-0, pool: cpu}
`)
	web := filepath.Join(dir, "web.yaml")
	writeFile(t, web, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {pool: cpu}
      containers: [{name: web, image: nginx:1.27}]
`)
	want := drvJSON(t, "check", nodes, web)
	snap := filepath.Join(dir, "snapshot.yaml")
	if r := drv(t, "snapshot", "nodes", nodes, "--file", snap); r.code != 0 {
		t.Fatalf("snapshot: exit %d %s", r.code, r.stderr)
	}
	got := drvJSON(t, "check", web, "--nodes", snap)
	if !slices.Equal(findingKeys(got), findingKeys(want)) {
		t.Errorf("with the snapshot:\n%s\nwith the files:\n%s", strings.Join(findingKeys(got), "\n"), strings.Join(findingKeys(want), "\n"))
	}
	if data, _ := os.ReadFile(snap); !strings.Contains(string(data), "2 nodes, 1 of them GPU nodes") || !strings.Contains(string(data), "cpu-0") {
		t.Errorf("snapshot:\n%s", data)
	}

	gpuOnly := filepath.Join(dir, "gpu-only.yaml")
	if r := drv(t, "snapshot", "nodes", nodes, "--gpu-only", "--file", gpuOnly); r.code != 0 {
		t.Fatalf("snapshot --gpu-only: exit %d %s", r.code, r.stderr)
	}
	r := drv(t, "check", web, "--nodes", gpuOnly, "-o", "json")
	if r.code != 0 {
		t.Errorf("check against a GPU-only snapshot: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	rep := drvJSON(t, "check", web, "--nodes", gpuOnly)
	for _, f := range rep.Findings {
		if f.Severity != "info" || !strings.Contains(f.Message, "the node snapshot holds GPU nodes only") || strings.Contains(f.Message, "0/1 nodes") {
			t.Errorf("%s %s: %s", f.Rule, f.Severity, f.Message)
		}
	}
	if len(rep.byRule("DRV010")) != 1 {
		t.Errorf("DRV010: %+v", rep.Findings)
	}
}
