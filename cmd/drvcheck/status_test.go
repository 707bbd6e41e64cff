package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A lab mid-upgrade: lab-node-0 done but still cordoned, lab-node-1
// cordoned in drain-required (trainer-pdb refuses), lab-node-2 in
// wait-for-jobs-required, lab-node-3 in upgrade-failed.
func labMidUpgrade(t *testing.T) string {
	dir, edit := labCopy(t)
	state := func(node, value string) {
		edit("k8s/nodes.yaml", "kubernetes.io/hostname: "+node+"\n", "kubernetes.io/hostname: "+node+"\n      nvidia.com/gpu-driver-upgrade-state: "+value+"\n")
	}
	state("lab-node-0", "upgrade-done")
	state("lab-node-1", "drain-required")
	state("lab-node-2", "wait-for-jobs-required")
	// Cordon lab-node-0, then lab-node-1: each edit takes the first
	// uncordoned spec. A cordoned node keeps its pods.
	edit("k8s/nodes.yaml", "  spec: {}\n", "  spec: {unschedulable: true}\n")
	edit("k8s/nodes.yaml", "  spec: {}\n", "  spec: {unschedulable: true}\n")
	edit("k8s/node3.yaml", "kubernetes.io/hostname: lab-node-3\n", "kubernetes.io/hostname: lab-node-3\n    nvidia.com/gpu-driver-upgrade-state: upgrade-failed\n")
	return dir
}

func TestStatusExplainsStalls(t *testing.T) {
	dir := labMidUpgrade(t)
	out, errs, code := drvcheck(t, "", "status", dir, "--matrix", filepath.Join(dir, "support-matrix.csv"), "-o", "json")
	var doc struct {
		Nodes []struct {
			Node, Driver, Tag, Image, State string
			StateStep                       int `json:"state_step"`
			Cordoned                        bool
			Finding                         *struct{ Rule, Message string }
		}
		States []string
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errs)
	}
	// DRV020 (an error) explains lab-node-1's stall: exit 1.
	if code != 1 || len(doc.Nodes) != 4 {
		t.Fatalf("exit %d, %d rows\n%s", code, len(doc.Nodes), out)
	}
	got := map[string]string{}
	for _, n := range doc.Nodes {
		rule := "-"
		if n.Finding != nil {
			rule = n.Finding.Rule
		}
		got[n.Node] = n.State + " " + rule
	}
	want := map[string]string{
		"lab-node-0": "upgrade-done DRV031",
		"lab-node-1": "drain-required DRV020",
		// wait-for-jobs waits for jobs, not evictions: DRV030 says what for.
		"lab-node-2": "wait-for-jobs-required DRV030",
		"lab-node-3": "upgrade-failed DRV001", // its image is missing too; the report's order decides
	}
	for node, w := range want {
		if got[node] != w {
			t.Errorf("%s: %q, want %q", node, got[node], w)
		}
	}
	if doc.Nodes[1].StateStep != 5 || doc.States[2] != "wait-for-jobs-required" || doc.Nodes[2].StateStep != 3 {
		t.Errorf("state steps %d/%d, states %v", doc.Nodes[1].StateStep, doc.Nodes[2].StateStep, doc.States)
	}
	if doc.Nodes[3].Image != "missing" || doc.Nodes[1].Image != "present" || !doc.Nodes[1].Cordoned || doc.Nodes[2].Cordoned {
		t.Errorf("images %s %s", doc.Nodes[3].Image, doc.Nodes[1].Image)
	}

	out, _, code = drvcheck(t, "", "status", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 5 || !strings.HasPrefix(lines[0], "NODE") {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
	if !strings.Contains(lines[2], "drain-required (5/9)") || !strings.Contains(lines[2], "lower trainer-pdb minAvailable from 4 to 3") {
		t.Fatalf("lab-node-1 row: %s", lines[2])
	}
}

func TestStatusWithoutStalls(t *testing.T) {
	out, _, code := drvcheck(t, "", "status", filepath.Join("..", "..", "testdata", "lab"))
	if code != 0 || strings.Count(out, "\n") != 5 || strings.Contains(out, "DRV0") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// A matrix of whole references (testdata/operator/change/images.csv)
// lists the driver images: status says present, as check finds none
// missing.
func TestStatusReadsAnImageMatrix(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "operator", "change")
	args := []string{filepath.Join(dir, "base.yaml"), filepath.Join(dir, "nodes.yaml"), "--matrix", filepath.Join(dir, "images.csv")}
	out, errs, code := drvcheck(t, "", append([]string{"status", "-o", "json"}, args...)...)
	var doc struct {
		Nodes []struct{ Node, Image string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Nodes) != 3 {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errs)
	}
	for _, n := range doc.Nodes {
		if n.Image != "present" {
			t.Errorf("%s: image %s, want present", n.Node, n.Image)
		}
	}
	if out, _, code := drvcheck(t, "", append([]string{"check"}, args...)...); code != 0 || strings.Contains(out, "DRV001") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}
