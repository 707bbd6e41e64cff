package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/testcluster"
)

func gpuWorkload(name string) string {
	return filepath.Join("..", "..", "testdata", "gpu-workloads", name)
}

// lineOf is the 1-based line of the first line of path that contains s.
func lineOf(t *testing.T, path, s string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%s has no %q", path, s)
	return 0
}

// Each GPU workload kind, checked against the lab's nodes: one DRV010, on
// the template that asks for a node that does not exist, at its line.
func TestGPUWorkloadKinds(t *testing.T) {
	nodes := []string{filepath.Join(lab, "k8s", "nodes.yaml"), filepath.Join(lab, "k8s", "node3.yaml")}
	for file, prefix := range map[string]string{
		"raycluster.yaml":       "workerGroupSpecs[0] (gpu-group): 0/4 nodes match",
		"rayjob.yaml":           "workerGroupSpecs[0] (gpu): 0/4 nodes match",
		"rayservice.yaml":       "workerGroupSpecs[0] (gpu): 0/4 nodes match",
		"pytorchjob.yaml":       "pytorchReplicaSpecs.Worker: 0/4 nodes match",
		"jobset.yaml":           "replicatedJobs[1] (workers): 0/4 nodes match",
		"leaderworkerset.yaml":  "workerTemplate: 0/4 nodes match",
		"volcano-job.yaml":      "tasks[1] (worker): 0/4 nodes match",
		"inferenceservice.yaml": "predictor: 0/4 nodes match",
		"trainjob.yaml":         "podTemplateOverrides[0] (node): 0/4 nodes match",
		"generic.yaml":          "launcher.template: 0/4 nodes match",
	} {
		path := gpuWorkload(file)
		rep := drvJSON(t, append([]string{"check"}, append(nodes, path)...)...)
		var got []string
		for _, f := range rep.Findings {
			if f.Rule != "DRV001" {
				got = append(got, f.Rule)
			}
		}
		f := rep.byRule("DRV010")
		if len(got) != 1 || len(f) != 1 || !strings.HasPrefix(f[0].Message, prefix) || f[0].File != path ||
			f[0].Line != lineOf(t, path, "nodeSelector:") {
			t.Errorf("%s: findings %v, DRV010 %+v; want one at its nodeSelector, %q", file, got, f, prefix)
		}
		if generic := strings.Contains(f[0].Message, "is a kind drvcheck does not know"); generic != (file == "generic.yaml") {
			t.Errorf("%s: %s", file, f[0].Message)
		}
	}
}

// How many pods each template makes, as each project counts them.
func TestGPUWorkloadReplicas(t *testing.T) {
	var doc struct {
		Workloads []struct {
			Object   struct{ Kind string }
			Template string
			Replicas int
			Custom   bool
		}
	}
	var paths []string
	for _, f := range []string{"raycluster.yaml", "jobset.yaml", "leaderworkerset.yaml", "pytorchjob.yaml", "volcano-job.yaml", "inferenceservice.yaml", "trainjob.yaml"} {
		paths = append(paths, gpuWorkload(f))
	}
	r := drv(t, append([]string{"input"}, paths...)...)
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v %s", err, r.stderr)
	}
	got := map[string]int{}
	for _, w := range doc.Workloads {
		if !w.Custom {
			t.Errorf("%s %s not marked custom", w.Object.Kind, w.Template)
		}
		got[w.Object.Kind+" "+w.Template] = w.Replicas
	}
	want := map[string]int{
		"RayCluster headGroupSpec": 1, "RayCluster workerGroupSpecs[0] (gpu-group)": 2,
		"JobSet replicatedJobs[0] (driver)": 1, "JobSet replicatedJobs[1] (workers)": 4,
		"LeaderWorkerSet leaderTemplate": 2, "LeaderWorkerSet workerTemplate": 6,
		"PyTorchJob pytorchReplicaSpecs.Master": 1, "PyTorchJob pytorchReplicaSpecs.Worker": 3,
		"Job tasks[0] (launcher)": 1, "Job tasks[1] (worker)": 2,
		"InferenceService predictor":              2,
		"TrainJob podTemplateOverrides[0] (node)": 4,
	}
	if len(got) != len(want) {
		t.Errorf("templates %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d replicas, want %d", k, got[k], v)
		}
	}
}

// A template of the wrong shape is exit 2 naming the object, the template
// and its line.
func TestGPUWorkloadMalformed(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "ray.yaml")
	writeFile(t, bad, "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r, namespace: ml}\nspec:\n  headGroupSpec:\n    template:\n      spec:\n        containers: oops\n")
	r := drv(t, "check", bad)
	if r.code != exitError || !strings.Contains(r.stderr, "RayCluster/ml/r ("+bad+":6): headGroupSpec: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("exit %d %q", r.code, r.stderr)
	}
}

// On a real control plane with the RayCluster and JobSet CRDs, scan lists
// them (discovery says they are served; the other GPU kinds are not, and
// are not asked for) and checks their templates against the nodes.
func TestGPUWorkloadsLive(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	kc := "--kubeconfig=" + c.Kubeconfig
	kubectl(t, c, "apply", "-f", gpuWorkload("crds.yaml"))
	kubectl(t, c, "wait", "--for=condition=established", "--timeout=60s", "crd/rayclusters.ray.io", "crd/jobsets.jobset.x-k8s.io")
	kubectl(t, c, "apply", "-f", filepath.Join(lab, "k8s", "nodes.yaml"), "-f", filepath.Join(lab, "k8s", "node3.yaml"))
	kubectl(t, c, "create", "namespace", "ml")
	kubectl(t, c, "apply", "-f", gpuWorkload("raycluster.yaml"), "-f", gpuWorkload("jobset.yaml"))
	rep := drvJSON(t, "scan", kc, "--matrix", matrix)
	var got []string
	for _, f := range rep.byRule("DRV010") {
		got = append(got, f.Object.String()+" "+strings.SplitN(f.Message, ":", 2)[0])
	}
	slices.Sort(got)
	want := []string{"JobSet/ml/multislice replicatedJobs[1] (workers)", "RayCluster/ml/llm-ray workerGroupSpecs[0] (gpu-group)"}
	if !slices.Equal(got, want) {
		t.Errorf("DRV010: %v, want %v", got, want)
	}
}

// A GitOps repository checks in one run: the overlays built (not the base
// alone), the chart rendered as its Argo CD Application deploys it, the GPU
// workloads read, the workflow skipped, and every finding at its source
// file and line.
func TestGitOpsRepository(t *testing.T) {
	repo := filepath.Join("..", "..", "testdata", "gitops")
	r := drv(t, "check", repo, "-o", "json")
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitFindings {
		t.Fatalf("exit %d %v %s", r.code, err, r.stderr)
	}
	var got []string
	for _, f := range rep.Findings {
		rel, _ := filepath.Rel(repo, f.File)
		got = append(got, f.Rule+" "+f.Object.String()+" "+rel+":"+strconv.Itoa(f.Line))
	}
	slices.Sort(got)
	want := []string{
		"DRV010 Deployment/dev/dev-triton apps/triton/base/deployment.yaml:14",
		"DRV010 Deployment/prod/prod-triton apps/triton/base/deployment.yaml:14",
		"DRV010 JobSet/ml/multislice workloads/jobset.yaml:27",
		"DRV010 LeaderWorkerSet/ml/vllm workloads/leaderworkerset.yaml:17",
		"DRV010 RayCluster/ml/llm-ray workloads/raycluster.yaml:23",
		"DRV020 PodDisruptionBudget/dev/dev-triton apps/triton/base/pdb.yaml:6",
	}
	if !slices.Equal(got, want) || rep.Summary.SkippedFiles != 1 {
		t.Errorf("findings:\n%s\nwant:\n%s\nskipped %d", strings.Join(got, "\n"), strings.Join(want, "\n"), rep.Summary.SkippedFiles)
	}
	// The chart is deployed by an Argo CD Application with its own values
	// (minAvailable 1, release and namespace inference), rendered in place
	// of its defaults; one from a Helm repository is noted, not followed.
	if !strings.Contains(r.stderr, "Application/argocd/network-operator ("+filepath.Join(repo, "argocd-app.yaml")+":40): source https://helm.ngc.nvidia.com/nvidia is not a path of this repository; not followed") {
		t.Errorf("stderr %q", r.stderr)
	}
	// --helm-set is the user's, and wins over the Application's values.
	set := drvJSON(t, "check", repo, "--helm-set", "pdb.minAvailable=2")
	f := set.byRule("DRV020")
	if len(f) != 2 || f[1].Object.String() != "PodDisruptionBudget/inference/inference-inference" ||
		f[1].File != filepath.Join(repo, "charts", "gpu-inference", "templates", "pdb.yaml") || f[1].Line != 6 {
		t.Errorf("with --helm-set: %+v", f)
	}
	// --no-render reads the overlay's patch as an object of its own.
	if r := drv(t, "check", repo, "--no-render"); r.code != exitError || !strings.Contains(r.stderr, "defined twice") {
		t.Errorf("--no-render: exit %d %s", r.code, r.stderr)
	}
}
