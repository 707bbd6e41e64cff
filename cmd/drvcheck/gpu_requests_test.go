package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func gpuReqFile(name string) string {
	return filepath.Join("..", "..", "testdata", "gpu-requests", name)
}

// DRV015 on inputs rebuilt from public sources (testdata/gpu-requests, each
// file citing its source): the answer of each is upstream's. A request the
// nodes cannot meet is an error naming what they offer; the same workload
// on nodes that can hold it is clean.
func TestGPURequestsAgainstWhatNodesOffer(t *testing.T) {
	cases := []struct {
		files []string
		want  map[string][]string // object -> substrings of its one DRV015 message
	}{
		// Time-slicing with renameByDefault: nvidia.com/gpu is 0, the
		// GPUs are nvidia.com/gpu.shared (CND gpu-sharing.rst L436-456).
		{[]string{"timeslicing-renamed.yaml"}, map[string][]string{"Pod/default/gpu-pod": {
			"1 Insufficient nvidia.com/gpu (have 0)", "ask for nvidia.com/gpu.shared: 1", "16 per node"}}},
		// The same node read from its GFD labels alone.
		{[]string{"timeslicing-renamed-labels.yaml"}, map[string][]string{"Pod/default/gpu-pod": {
			"1 Insufficient nvidia.com/gpu (have 0)", "ask for nvidia.com/gpu.shared: 1", "16 per node"}}},
		// Without the rename, five replicas of 1 run on 16 (the guide's
		// verification).
		{[]string{"timeslicing.yaml"}, nil},
		// MIG mixed on A100-40GB: the page's own Pod runs; a 3g.40gb
		// profile and a whole GPU do not.
		{[]string{"mig-mixed-a100.yaml"}, map[string][]string{
			"Pod/default/wrong-profile": {"Insufficient nvidia.com/mig-3g.40gb (have 0)", "nvidia.com/mig-1g.5gb, nvidia.com/mig-2g.10gb, nvidia.com/mig-3g.20gb"},
			"Pod/default/whole-gpu":     {"Insufficient nvidia.com/gpu (have 0)", "nvidia.com/mig.config on the nodes to all-disabled"},
		}},
		// MIG mixed on H100 from labels: all-balanced has 3g.40gb, all-1g.10gb
		// not.
		{[]string{"mig-mixed-h100-labels.yaml"}, map[string][]string{"Pod/default/on-1g": {
			"0/2 nodes are available: 1 Insufficient nvidia.com/mig-3g.40gb (have 0), 1 node(s) didn't match Pod's node affinity/selector", "(nvidia.com/mig-1g.10gb)"}}},
		// MIG single: 7 MIG devices as nvidia.com/gpu.
		{[]string{"mig-single-a100.yaml"}, map[string][]string{"Pod/default/eight-slices": {
			"Insufficient nvidia.com/gpu (have 7)", "ask for at most 7 nvidia.com/gpu per pod"}}},
		// A LeaderWorkerSet of 2 groups of 2 pods of 8 GPUs on 3 nodes of 8,
		// then 4.
		{[]string{"lws-vllm.yaml"}, map[string][]string{"LeaderWorkerSet/default/vllm": {
			"its 4 GPU pods ask for 32 nvidia.com/gpu in all", "the 3 node(s)", "hold 3 of them (24 nvidia.com/gpu free on them)"}}},
		{[]string{"lws-vllm.yaml", "lws-vllm-room.yaml"}, nil},
		// Gangs of Volcano and Kubeflow on a node too small for all ranks.
		{[]string{"volcano-mindspore.yaml"}, map[string][]string{"Job/default/mindspore-gpu": {"its 2 GPU pods", "hold 1 of them", "gang-scheduled"}}},
		{[]string{"pytorchjob-mnist-small.yaml"}, map[string][]string{"PyTorchJob/default/pytorch-dist-mnist-nccl": {"its 2 GPU pods", "hold 1 of them"}}},
		{[]string{"pytorchjob-mnist.yaml"}, nil},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.files, "+"), func(t *testing.T) {
			var args []string
			for _, f := range c.files {
				args = append(args, gpuReqFile(f))
			}
			rep := drvJSON(t, append([]string{"check"}, args...)...)
			got := map[string]string{}
			for _, f := range rep.byRule("DRV015") {
				if _, dup := got[f.Object.String()]; dup {
					t.Errorf("two DRV015 findings on %s", f.Object)
				}
				got[f.Object.String()] = f.Message
				if f.Severity != "error" || f.Line == 0 {
					t.Errorf("%s: severity %s line %d", f.Object, f.Severity, f.Line)
				}
			}
			for obj, parts := range c.want {
				msg, ok := got[obj]
				if !ok {
					t.Errorf("no DRV015 on %s; got %v", obj, got)
					continue
				}
				for _, p := range parts {
					if !strings.Contains(msg, p) {
						t.Errorf("%s: %q lacks %q", obj, msg, p)
					}
				}
			}
			for obj := range got {
				if !slices.Contains(mapKeys(c.want), obj) {
					t.Errorf("unexpected DRV015 on %s: %s", obj, got[obj])
				}
			}
		})
	}
}

func mapKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
