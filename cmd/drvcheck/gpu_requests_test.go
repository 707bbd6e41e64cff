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

	"github.com/drvcheck/drvcheck/internal/plan"
	"github.com/drvcheck/drvcheck/internal/testcluster"
	"github.com/drvcheck/drvcheck/policy"
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
		// failRequestsGreaterThanOne (the device plugin's README): the
		// scheduler places 2 of 16 replicas, the plugin refuses them; 1,
		// and 1 in each of two containers, run.
		{[]string{"timeslicing-fail-over-one.yaml"}, map[string][]string{"Pod/default/two-replicas": {
			"1 node(s) fail the pod at admission (UnexpectedAdmissionError: a container asks for more than 1 nvidia.com/gpu",
			"time-slicing with failRequestsGreaterThanOne (ConfigMap gpu-operator/time-slicing-config-all, key any)", "ask for one device per container"}}},
		// MPS refuses more than one by default; the node picks its config
		// by label, and the unlabelled node shares nothing.
		{[]string{"mps-per-node.yaml"}, map[string][]string{"Deployment/default/pair": {
			"1 node(s) didn't match Pod's node affinity/selector, 1 node(s) fail the pod at admission",
			"MPS, which fails more than one unless failRequestsGreaterThanOne is false (ConfigMap gpu-operator/device-plugin-configs, key mps10)"}}},
		// MIG mixed on A100-40GB: the page's own Pod runs; a 3g.40gb
		// profile and a whole GPU do not.
		{[]string{"mig-mixed-a100.yaml"}, map[string][]string{
			"Pod/default/wrong-profile": {"Insufficient nvidia.com/mig-3g.40gb (have 0)", "nvidia.com/mig-1g.5gb, nvidia.com/mig-2g.10gb, nvidia.com/mig-3g.20gb",
				"no admitted node's GPU can offer it: A100-SXM4-40GB has no 3g.40gb profile"},
			"Pod/default/whole-gpu": {"Insufficient nvidia.com/gpu (have 0)", "nvidia.com/mig.config=all-disabled on the nodes to offer whole GPUs"},
		}},
		// MIG mixed on H100 from labels: all-balanced has 3g.40gb, all-1g.10gb
		// not.
		{[]string{"mig-mixed-h100-labels.yaml"}, map[string][]string{"Pod/default/on-1g": {
			"0/2 nodes are available: 1 Insufficient nvidia.com/mig-3g.40gb (have 0), 1 node(s) didn't match Pod's node affinity/selector", "(nvidia.com/mig-1g.10gb)",
			"repartition them: nvidia.com/mig.config=all-3g.40gb gives each NVIDIA-H100-80GB-HBM3 GPU 2"}}},
		// A new mig.config pending: the node offers what the config makes.
		{[]string{"mig-config-pending.yaml"}, map[string][]string{"Pod/default/one-g": {
			"Insufficient nvidia.com/mig-1g.10gb (have 0)", "(nvidia.com/mig-3g.40gb)", "nvidia.com/mig.config=all-1g.10gb gives each NVIDIA-H100-80GB-HBM3 GPU 7"}}},
		// MIG single with all-3g.20gb pending on the same node: 2 once it
		// applies, whatever the labels still count.
		{[]string{"mig-single-pending.yaml"}, map[string][]string{"Pod/default/four-slices": {
			"Insufficient nvidia.com/gpu (have 2)", "ask for at most 2 nvidia.com/gpu per pod"}}},
		// A gang on the same nodes: the MPS node fails its ranks at
		// admission, the plain one holds 4 of 5.
		{[]string{"mps-per-node.yaml", "mps-gang.yaml"}, map[string][]string{
			"Deployment/default/pair":      {"1 node(s) fail the pod at admission"},
			"PyTorchJob/default/mnist-mps": {"its 5 GPU pods", "hold 4 of them", "1 more fail them at admission (UnexpectedAdmissionError", "key mps10"}}},
		// A custom mig-parted config (the MIG page's five-1g-one-2g): the
		// node will offer 5 1g.10gb and 1 2g.20gb, and only the
		// ConfigMap's configs can repartition it.
		{[]string{"mig-custom-config.yaml"}, map[string][]string{
			"Pod/default/six-one-g": {"Insufficient nvidia.com/mig-1g.10gb (have 5)"},
			"Pod/default/three-g": {"Insufficient nvidia.com/mig-3g.40gb (have 0)",
				"no config of the MIG manager's ConfigMap gpu-operator/custom-mig-config gives the admitted nodes' GPUs 3g.40gb"},
			"Pod/default/whole": {"Insufficient nvidia.com/gpu (have 0)",
				"nvidia.com/mig.config=all-disabled gives NVIDIA-H100-80GB-HBM3 GPUs whole (ConfigMap gpu-operator/custom-mig-config)"},
		}},
		// NVIDIA's DRA driver instead of the device plugin: its
		// DeviceClass maps nvidia.com/gpu to its devices (8 H100s), which
		// the scheduler allocates where the node lists none.
		{[]string{"dra-extended-resource.yaml", "dra-extended-resource-nodes.yaml"}, map[string][]string{
			"Pod/default/sixteen-gpus": {"Insufficient nvidia.com/gpu (have 8)"}}},
		{[]string{"dra-extended-resource-nodes.yaml"}, map[string][]string{
			"Pod/default/eight-gpus":   {"Insufficient nvidia.com/gpu (have 0)"},
			"Pod/default/sixteen-gpus": {"Insufficient nvidia.com/gpu (have 0)"}}},
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
		// minAvailable 2 of its 3 pods: the master and one worker start.
		{[]string{"volcano-minavailable.yaml"}, nil},
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

// A custom mig-parted config mig-parted would not parse stops the run,
// naming the ConfigMap and the config: the MIG manager fails on every
// node that asks for one.
func TestBadCustomMIGConfig(t *testing.T) {
	data, err := os.ReadFile(gpuReqFile("mig-custom-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "          mig-enabled: false\n", "          mig-enabled: false\n          mig-devices: {\"1g.10gb\": 7}\n", 1)
	path := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, path, bad)
	r := drv(t, "check", path)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != exitError || lines[len(lines)-1] != "drvcheck: ConfigMap gpu-operator/custom-mig-config, config all-disabled, entry 0: mig-devices given with mig-enabled false" {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	// A name that is no string: the API server would refuse the
	// ClusterPolicy.
	writeFile(t, path, strings.Replace(string(data), "config: {name: custom-mig-config}", "config: {name: 12345}", 1))
	r = drv(t, "check", path)
	lines = strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != exitError || lines[len(lines)-1] != "drvcheck: ClusterPolicy/cluster-policy: spec.migManager.config.name must be a string, not 12345" {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	// The ConfigMap the ClusterPolicy names, not among the inputs: said,
	// and its pending layout is unknown (no finding from the old labels),
	// not the operator's defaults.
	i := strings.Index(string(data), "apiVersion: v1\nkind: ConfigMap")
	j := i + strings.Index(string(data)[i:], "---\n") + 4
	writeFile(t, path, string(data)[:i]+string(data)[j:])
	rep := drvJSON(t, "check", path)
	r = drv(t, "check", path)
	if fs := rep.byRule("DRV015"); len(fs) != 0 || !strings.Contains(r.stderr, "ClusterPolicy/cluster-policy names ConfigMap custom-mig-config (spec.migManager.config.name), which the inputs do not hold") {
		t.Errorf("%+v\n%s", fs, r.stderr)
	}
}

func mapKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// DRA claims from files, against the devices NVIDIA's DRA driver would
// publish for GFD-labelled nodes (testdata/gpu-requests/dra-*.yaml, each
// citing its source): issue 37's H100 selector on an A100 fleet and on an
// H100 node, and the driver's own demo that selects on an attribute it no
// longer publishes.
func TestDRAClaimsFromFiles(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  []string
	}{
		{[]string{"dra-nodes-a100.yaml", "dra-claim-h100.yaml", "dra-pod.yaml"}, []string{
			"no node can meet this claim: request gpu asks for 1 device(s) of class gpu.nvidia.com where device.attributes['gpu.nvidia.com'].productName == \"NVIDIA H100 80GB HBM3\"",
			"8 × NVIDIA A100 SXM4 40GB on 2 node(s) (labels)"}},
		{[]string{"dra-nodes-h100.yaml", "dra-claim-h100.yaml", "dra-pod.yaml"}, nil},
		{[]string{"dra-demo-index.yaml"}, []string{"the selector fails on the devices: no such key: index"}},
	} {
		var args []string
		for _, f := range c.files {
			args = append(args, gpuReqFile(f))
		}
		fs := drvJSON(t, append([]string{"check"}, args...)...).byRule("DRV015")
		assertClaimFinding(t, strings.Join(c.files, "+"), fs, c.want)
	}
}

// A claim some node meets, used by a pod that may run on none of those:
// DRV015 on the pod, at its resourceClaims entry.
func TestDRAClaimOutsideThePodsNodes(t *testing.T) {
	fs := drvJSON(t, "check", gpuReqFile("dra-pod-on-a100-pool.yaml"), gpuReqFile("dra-claim-h100.yaml")).byRule("DRV015")
	if len(fs) != 1 || fs[0].Object.String() != "Pod/ml/pinned" || fs[0].Line == 0 ||
		!strings.Contains(fs[0].Message, "its claim ResourceClaimTemplate/ml/h100 can be met on the fleet, but not on the nodes its node affinity and tolerations admit") ||
		!strings.Contains(fs[0].Message, "8 × NVIDIA A100 SXM4 40GB on 1 node(s)") {
		t.Errorf("%+v", fs)
	}
}

func assertClaimFinding(t *testing.T, what string, fs []policy.Finding, want []string) {
	t.Helper()
	if len(want) == 0 {
		if len(fs) != 0 {
			t.Errorf("%s: %+v", what, fs)
		}
		return
	}
	if len(fs) != 1 || fs[0].Object.Kind != "ResourceClaimTemplate" {
		t.Errorf("%s: %+v", what, fs)
		return
	}
	for _, w := range want {
		if !strings.Contains(fs[0].Message, w) {
			t.Errorf("%s: %q lacks %q", what, fs[0].Message, w)
		}
	}
}

// The same claim live, on the control plane: the devices are the
// ResourceSlices' as NVIDIA's driver publishes them (no driver runs: the
// slices are created as it would). A100s: DRV015; the slice replaced by
// H100s: none.
func TestDRAClaimsLive(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	kc := "--kubeconfig=" + c.Kubeconfig
	kubectl(t, c, "create", "namespace", "ml")
	kubectl(t, c, "apply", "-f", gpuReqFile("dra-claim-h100.yaml"))
	node := "apiVersion: v1\nkind: Node\nmetadata:\n  name: dra-node\n  labels: {nvidia.com/gpu.present: \"true\"}\n"
	path := filepath.Join(t.TempDir(), "node.yaml")
	writeFile(t, path, node)
	kubectl(t, c, "apply", "-f", path)
	kubectl(t, c, "apply", "-f", gpuReqFile("dra-live-slice-a100.yaml"))
	fs := drvJSON(t, "scan", kc).byRule("DRV015")
	assertClaimFinding(t, "A100 slice", fs, []string{"of class gpu.nvidia.com", "2 × NVIDIA A100-PCIE-40GB on 1 node(s) (resourceslices)"})
	kubectl(t, c, "delete", "resourceslice", "dra-node-gpu.nvidia.com")
	kubectl(t, c, "apply", "-f", gpuReqFile("dra-live-slice-h100.yaml"))
	assertClaimFinding(t, "H100 slice", drvJSON(t, "scan", kc).byRule("DRV015"), nil)
}

// The DRA extended resource live, on the control plane, against its real
// scheduler: NVIDIA's DeviceClass mapping nvidia.com/gpu, a node whose
// status lists no GPU and a ResourceSlice of two H100s. A pod of 2 GPUs:
// no finding, and the scheduler binds it (allocating the devices through
// a claim of its own); a pod of 3: DRV015 (have 2), and the scheduler
// leaves it Pending.
func TestDRAExtendedResourceLive(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	dir := t.TempDir()
	kubectl(t, c, "create", "namespace", "ml")
	kubectl(t, c, "apply", "-f", gpuReqFile("dra-extended-resource.yaml"))
	node := "apiVersion: v1\nkind: Node\nmetadata:\n  name: dra-node\n  annotations: {kwok.x-k8s.io/node: fake}\n  labels: {nvidia.com/gpu.present: \"true\"}\n" +
		"status:\n  allocatable: {cpu: \"32\", memory: 256Gi, pods: \"110\"}\n  capacity: {cpu: \"32\", memory: 256Gi, pods: \"110\"}\n"
	writeFile(t, filepath.Join(dir, "node.yaml"), node)
	kubectl(t, c, "apply", "-f", filepath.Join(dir, "node.yaml"))
	kubectl(t, c, "apply", "-f", gpuReqFile("dra-live-slice-h100.yaml"))
	waitNodesReady(t, c, 1)
	var pods strings.Builder
	for name, n := range map[string]int{"two-gpus": 2, "three-gpus": 3} {
		fmt.Fprintf(&pods, "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: ml}\nspec:\n  terminationGracePeriodSeconds: 0\n  containers: [{name: c, image: registry.example.com/c:1, resources: {limits: {nvidia.com/gpu: %d}}}]\n---\n", name, n)
	}
	writeFile(t, filepath.Join(dir, "pods.yaml"), pods.String())
	kubectl(t, c, "apply", "-f", filepath.Join(dir, "pods.yaml"))

	fs := drvJSON(t, "scan", "--kubeconfig="+c.Kubeconfig).byRule("DRV015")
	if len(fs) != 1 || fs[0].Object.String() != "Pod/ml/three-gpus" || !strings.Contains(fs[0].Message, "Insufficient nvidia.com/gpu (have 2)") {
		t.Errorf("drvcheck: %+v", fs)
	}
	waitFor(t, "the scheduler's answer on both pods", func(ctx context.Context) (bool, error) {
		two, err := c.Client.CoreV1().Pods("ml").Get(ctx, "two-gpus", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		three, err := c.Client.CoreV1().Pods("ml").Get(ctx, "three-gpus", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if two.Spec.NodeName != "dra-node" {
			return false, fmt.Errorf("two-gpus is not bound to dra-node: %v", two.Status.Conditions)
		}
		for _, cond := range three.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
				return three.Spec.NodeName == "", nil
			}
		}
		return false, fmt.Errorf("three-gpus: %v", three.Status.Conditions)
	})
}

// The device plugin's config live: the time-slicing fixture on the control
// plane, its ConfigMap in the operator's namespace. The admin's scan reads
// the ConfigMap the ClusterPolicy names and finds the pod the plugin would
// refuse; deploy/rbac.yaml's ServiceAccount may not get it, says so, and
// judges without it; with deploy/operator-configs-rbac.yaml it sees what
// the admin sees.
func TestOperatorConfigsLive(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx := context.Background()
	kubectl(t, c, "apply", "-f", opFile("crds.yaml"))
	kubectl(t, c, "wait", "--for=condition=established", "--timeout=60s", "crd/clusterpolicies.nvidia.com")
	kubectl(t, c, "create", "namespace", "gpu-operator")
	kubectl(t, c, "apply", "-f", gpuReqFile("timeslicing-fail-over-one.yaml"))
	kubectl(t, c, "apply", "-f", filepath.Join("..", "..", "deploy", "rbac.yaml"))
	sa, err := c.ServiceAccountKubeconfig(ctx, "drvcheck", "drvcheck")
	if err != nil {
		t.Fatal(err)
	}
	refused := func(kubeconfig string) (result, []policy.Finding) {
		r := drv(t, "scan", "--kubeconfig="+kubeconfig, "-o", "json")
		var rep jsonReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, r.stderr)
		}
		return r, rep.byRule("DRV015")
	}
	r, fs := refused(c.Kubeconfig)
	if len(fs) != 1 || fs[0].Object.String() != "Pod/default/two-replicas" ||
		!strings.Contains(fs[0].Message, "UnexpectedAdmissionError") || !strings.Contains(fs[0].Message, "(ConfigMap gpu-operator/time-slicing-config-all, key any)") {
		t.Errorf("admin: %+v\n%s", fs, r.stderr)
	}
	var saRun result
	err = testcluster.Poll(ctx, "the reader's binding to be in force", func(context.Context) (bool, error) {
		saRun, fs = refused(sa)
		return saRun.code != exitError, nil
	})
	if err != nil || len(fs) != 0 || !strings.Contains(saRun.stderr, "forbidden to get ConfigMap gpu-operator/time-slicing-config-all, taken in the chart's namespace as no DaemonSet of a ClusterPolicy's was read (deploy/operator-configs-rbac.yaml's Role drvcheck-operator-configs grants it)") {
		t.Errorf("without the Role: %v %+v\n%s", err, fs, saRun.stderr)
	}
	kubectl(t, c, "apply", "-f", filepath.Join("..", "..", "deploy", "operator-configs-rbac.yaml"))
	err = testcluster.Poll(ctx, "the Role to be in force", func(context.Context) (bool, error) {
		saRun, fs = refused(sa)
		return len(fs) == 1 && !strings.Contains(saRun.stderr, "forbidden"), nil
	})
	if err != nil {
		t.Errorf("with the Role: %v %+v\n%s", err, fs, saRun.stderr)
	}
}

// A gang that fills its pool (lws-vllm.yaml with a fourth node) under the
// chart's default upgrade policy: one node out at a time leaves room for 3
// of its 4 pods, a warning (DRV029); without an operator profile there is
// no rollout to say it of.
func TestGangDuringTheRollout(t *testing.T) {
	fleet := []string{"check", gpuReqFile("lws-vllm.yaml"), gpuReqFile("lws-vllm-room.yaml")}
	fs := drvJSON(t, append(fleet, gpuReqFile("clusterpolicy-rollout.yaml"))...).byRule("DRV029")
	if len(fs) != 1 || fs[0].Object.String() != "LeaderWorkerSet/default/vllm" || fs[0].Severity != "warning" ||
		!strings.Contains(fs[0].Message, "the driver rollout takes up to 1 of its 4 admitted node(s) out at once") || !strings.Contains(fs[0].Message, "3 of the 4 GPU pods that must run at once fit") {
		t.Errorf("%+v", fs)
	}
	if fs := drvJSON(t, fleet...).byRule("DRV029"); len(fs) != 0 {
		t.Errorf("no operator profile: %+v", fs)
	}
}

// gangRounds is plan --all -o json's displaced of files read with
// the driver image listed.
func gangRounds(t *testing.T, files ...string) []plan.Displaced {
	t.Helper()
	args := []string{"plan", "--all", "--driver", "580.95.05", "--matrix", gpuReqFile("driver-580.95.05.csv"), "-o", "json"}
	for _, f := range files {
		args = append(args, gpuReqFile(f))
	}
	r := drv(t, args...)
	var out struct{ Displaced []plan.Displaced }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stderr)
	}
	return out.Displaced
}

// Two nodes at a time (gang-rounds.yaml): the gang loses its place in
// the round that takes its two large nodes out, round 2, and check's
// DRV029 warns of it. When no round in name order or reverse takes two
// large nodes at once (gang-rounds-split.yaml), DRV029 still warns, and
// plan --all says it depends on the operator's order.
func TestPlanAllNamesTheRoundAGangLosesItsPlace(t *testing.T) {
	ds := gangRounds(t, "gang-rounds.yaml")
	if len(ds) != 1 || ds[0].First == nil || ds[0].First.Round != 2 || strings.Join(ds[0].First.Out, ",") != "g2,g3" ||
		ds[0].First.Placed != 0 || ds[0].Must != 2 || ds[0].OrderDependent {
		t.Errorf("gang-rounds.yaml: %+v", ds)
	}
	ds = gangRounds(t, "gang-rounds-split.yaml")
	if len(ds) != 1 || ds[0].First != nil || !ds[0].OrderDependent || !strings.Contains(ds[0].Why, "in another order the operator may take") {
		t.Errorf("gang-rounds-split.yaml: %+v", ds)
	}
	for f, placed := range map[string]string{"gang-rounds.yaml": "0 of the 2 GPU pods", "gang-rounds-split.yaml": "1 of the 2 GPU pods"} {
		fs := drvJSON(t, "check", "--matrix", gpuReqFile("driver-580.95.05.csv"), gpuReqFile(f)).byRule("DRV029")
		if len(fs) != 1 || !strings.Contains(fs[0].Message, placed) {
			t.Errorf("%s: DRV029 %+v", f, fs)
		}
	}
}

// vLLM's Deployment filling 4 nodes of one GPU (vllm-deployment.yaml)
// under the chart's upgrade policy: one node out leaves room for 3 of its
// 4 pods, a warning (DRV032), and plan --all's rollout leaves the evicted
// pod Pending in each round. A fifth node gives room; without an operator
// profile there is no rollout.
func TestReplicasDuringTheRollout(t *testing.T) {
	matrix := []string{"--matrix", gpuReqFile("driver-580.95.05.csv")}
	fleet := append([]string{"check"}, append(matrix, gpuReqFile("vllm-deployment.yaml"))...)
	rollout := gpuReqFile("clusterpolicy-rollout.yaml")
	fs := drvJSON(t, append(fleet, rollout)...).byRule("DRV032")
	if len(fs) != 1 || fs[0].Object.String() != "Deployment/default/mistral-7b" || fs[0].Severity != "warning" ||
		!strings.Contains(fs[0].Message, "4 pod(s) in all, which those nodes hold (room for 4), but without the 1 that hold the most, 3 fit: 1 wait Pending") {
		t.Errorf("%+v", fs)
	}
	if fs := drvJSON(t, append(fleet, gpuReqFile("vllm-deployment-room.yaml"), rollout)...).byRule("DRV032"); len(fs) != 0 {
		t.Errorf("a fifth node: %+v", fs)
	}
	if fs := drvJSON(t, fleet...).byRule("DRV032"); len(fs) != 0 {
		t.Errorf("no operator profile: %+v", fs)
	}
	r := drv(t, append(append([]string{"plan", "--all", "--driver", "580.95.05", "-o", "json"}, matrix...), gpuReqFile("vllm-deployment.yaml"), rollout)...)
	var rolled plan.Rolling
	if err := json.Unmarshal([]byte(r.stdout), &rolled); err != nil {
		t.Fatalf("%v\n%s", err, r.stderr)
	}
	for _, o := range rolled.Nodes {
		if o.Outcome != plan.Upgraded || len(o.Pending) != 1 || !strings.Contains(o.Pending[0], "Insufficient nvidia.com/gpu") {
			t.Errorf("%s in round %d: %s, pending %v", o.Node, o.Round, o.Outcome, o.Pending)
		}
	}
}

// plan --all names the gang that loses its place while a window's nodes
// are out, as DRV029 judges it.
func TestPlanAllNamesTheDisplacedGang(t *testing.T) {
	r := drv(t, "plan", "--all", "--driver", "580.95.05", gpuReqFile("lws-vllm.yaml"), gpuReqFile("lws-vllm-room.yaml"), gpuReqFile("clusterpolicy-rollout.yaml"), "-o", "json")
	var plan struct {
		Displaced []struct{ Object, Why string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || len(plan.Displaced) != 1 ||
		plan.Displaced[0].Object != "LeaderWorkerSet/default/vllm" || !strings.Contains(plan.Displaced[0].Why, "3 of the 4 GPU pods that must run at once fit") {
		t.Errorf("%v %+v\n%s", err, plan.Displaced, r.stderr)
	}
}
