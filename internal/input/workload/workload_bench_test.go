package workload

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

// BenchmarkWorkloads gathers the workload facts of 20,000 workloads over
// 5,000 nodes, next to decoding the same manifests, which the facts must
// stay well under. Run: go test ./internal/input/workload -run '^$' -bench Workloads
func BenchmarkWorkloads(b *testing.B) {
	data := benchFleet(5000, 20000)
	decode := func() *inventory.Inventory {
		inv, err := inventory.Parse("fleet.yaml", data, false)
		if err != nil {
			b.Fatal(err)
		}
		return inv
	}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			decode()
		}
	})
	inv := decode()
	b.Run("facts", func(b *testing.B) {
		for b.Loop() {
			if ws, _ := workloadEntries(inv, nodefacts.All(inv.Nodes), cuda.Policy{}, newDRAFleet(inv, nodefacts.All(inv.Nodes)), nil, nil); len(ws) != 20000 {
				b.Fatalf("%d workloads", len(ws))
			}
		}
	})
}

// benchFleet writes a fleet as varied as a large GPU cluster: four driver
// branches on both generations of gpu-feature-discovery labels, kernels,
// zones, pools, tainted and cordoned nodes; workloads of every kind with
// nodeSelectors, required and preferred affinity (Gt on the branch, a
// typo, pinning to a hostname), tolerations, self anti-affinity and CUDA
// images.
func benchFleet(nodes, workloads int) []byte {
	var b bytes.Buffer
	branches := []string{"535", "550", "570", "580"}
	for i := range nodes {
		key := "nvidia.com/cuda.driver-version.major"
		if i%3 == 0 {
			key = "nvidia.com/cuda.driver.major"
		}
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Node
metadata:
  name: node-%[1]d
  labels:
    kubernetes.io/hostname: node-%[1]d
    nvidia.com/gpu.present: "%[2]t"
    %[3]s: "%[4]s"
    feature.node.kubernetes.io/kernel-version.full: 5.15.0-%[5]d-generic
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "2%[6]d.04"
    topology.kubernetes.io/zone: zone-%[7]d
    example.com/pool: pool-%[8]d
    node.kubernetes.io/instance-type: type-%[9]d
spec:
  unschedulable: %[10]t
`, i, i%10 != 0, key, branches[i%4], 100+i%10, 2+i%2, i%10, i%20, i%5, i%100 == 0)
		if i%10 == 1 {
			b.WriteString("  taints:\n  - key: nvidia.com/gpu\n    effect: NoSchedule\n")
		}
	}
	kinds := []struct{ apiVersion, kind, specIndent string }{
		{"apps/v1", "Deployment", "      "}, {"apps/v1", "StatefulSet", "      "}, {"batch/v1", "Job", "      "},
		{"v1", "Pod", "  "}, {"apps/v1", "DaemonSet", "      "}, {"apps/v1", "ReplicaSet", "      "},
	}
	images := []string{
		"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", "nvcr.io/nvidia/cuda:13.0.0-base-ubuntu24.04",
		"nvcr.io/nvidia/pytorch:25.12-py3", "nvcr.io/nvidia/tritonserver:24.07-py3", "busybox:1.36",
	}
	for i := range workloads {
		k := kinds[i%len(kinds)]
		fmt.Fprintf(&b, "---\napiVersion: %s\nkind: %s\nmetadata:\n  name: w-%d\n  namespace: ns-%d\n", k.apiVersion, k.kind, i, i%50)
		in := k.specIndent
		if k.kind != "Pod" {
			fmt.Fprintf(&b, "spec:\n  replicas: %d\n  selector:\n    matchLabels:\n      app: w-%d\n  template:\n    metadata:\n      labels:\n        app: w-%d\n    spec:\n", 1+i%8, i, i)
		} else {
			fmt.Fprintf(&b, "  labels:\n    app: w-%d\nspec:\n", i)
		}
		fmt.Fprintf(&b, "%scontainers:\n%s- name: c\n%s  image: %s\n", in, in, in, images[i%len(images)])
		if i%2 == 0 {
			fmt.Fprintf(&b, "%stolerations:\n%s- key: nvidia.com/gpu\n%s  operator: Exists\n", in, in, in)
		}
		if i%5 == 0 {
			fmt.Fprintf(&b, "%snodeSelector:\n%s  example.com/pool: pool-%d\n", in, in, i%20)
		}
		benchAffinity(&b, in, i)
	}
	return b.Bytes()
}

func benchAffinity(b *bytes.Buffer, in string, i int) {
	var exprs []string
	switch i % 7 {
	case 0:
		exprs = append(exprs, fmt.Sprintf("{key: nvidia.com/cuda.driver-version.major, operator: Gt, values: [\"%d\"]}", 530+i%50))
	case 1:
		exprs = append(exprs, fmt.Sprintf("{key: topology.kubernetes.io/zone, operator: In, values: [zone-%d, zone-%d]}", i%10, (i+3)%10))
	case 2:
		exprs = append(exprs, "{key: feature.node.kubernetes.io/system-os_release.VERSION_ID, operator: Gt, values: [\"20\"]}")
	case 3:
		exprs = append(exprs, "{key: nvidia.com/gpu.presnt, operator: In, values: [\"true\"]}")
	}
	if i%100 == 7 { // pinned to a node, which splits the fleet into single nodes for this spec
		exprs = append(exprs, fmt.Sprintf("{key: kubernetes.io/hostname, operator: In, values: [node-%d]}", i%5000))
	}
	anti := i%3 == 0
	if len(exprs) == 0 && !anti {
		return
	}
	fmt.Fprintf(b, "%saffinity:\n", in)
	if len(exprs) > 0 {
		fmt.Fprintf(b, "%s  nodeAffinity:\n%s    requiredDuringSchedulingIgnoredDuringExecution:\n%s      nodeSelectorTerms:\n%s      - matchExpressions:\n", in, in, in, in)
		for _, e := range exprs {
			fmt.Fprintf(b, "%s        - %s\n", in, e)
		}
	}
	if anti {
		fmt.Fprintf(b, "%s  podAntiAffinity:\n%s    requiredDuringSchedulingIgnoredDuringExecution:\n%s    - topologyKey: kubernetes.io/hostname\n%s      labelSelector:\n%s        matchLabels:\n%s          app: w-%d\n", in, in, in, in, in, in, i)
	}
}

func TestBenchFleetDecodes(t *testing.T) {
	inv, err := inventory.Parse("fleet.yaml", benchFleet(50, 200), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Nodes) != 50 || len(inv.Workloads()) != 200 {
		t.Fatalf("%d nodes, %d workloads", len(inv.Nodes), len(inv.Workloads()))
	}
}
