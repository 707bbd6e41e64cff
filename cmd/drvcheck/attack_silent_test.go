package main

// The attack suite, continued: docs/security.md's promise 0, no silent
// pass. Each case is a path or a file name a pull request or a user
// gives that was once read as nothing (exit 0, "0 object(s) checked", an
// empty side of a diff) or that hung, built at run time as the other
// attacks are.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/operator/change"
	"github.com/drvcheck/drvcheck/internal/plan"
)

// gpuChart writes a chart at rel whose one template holds a GPU node and
// a Pod that selects a GPU model the node is not: DRV010, an error, that
// a check which read the chart cannot miss.
func (w *workspace) gpuChart(rel string) {
	w.chart(rel, map[string]string{"fleet.yaml": `apiVersion: v1
kind: Node
metadata:
  name: gpu-a100
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}
status:
  allocatable: {nvidia.com/gpu: "8"}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
  containers:
  - {name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 1}}}
`})
	w.file(rel+"/values.yaml", "replicas: 1\n")
}

// A path is what it names, with or without a slash: a link out of the
// repository is exit 2 in every form; a link inside it is followed once.
func TestAttackNamedPathsAreReadAsNamed(t *testing.T) {
	out := map[string][]string{
		"folder linked out":                       {"charts/link"},
		"folder linked out, with a slash":         {"charts/link/"},
		"a staged file under a folder linked out": {"--as-rendered", "charts/link/values.yaml"},
		"a file under a folder linked out":        {"charts/link/values.yaml"},
	}
	for name, args := range out {
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t).enter()
			w.homeFile("chart/values.yaml", "name: "+canary+"\n")
			w.link(filepath.Join(w.home, "chart"), "charts/link")
			w.held(drv(t, append([]string{"check"}, args...)...), "charts/link")
		})
	}
	inside := map[string][]string{
		"folder linked inside":                       {"sub/alias"},
		"folder linked inside, with a slash":         {"sub/alias/"},
		"a staged file under a folder linked inside": {"--as-rendered", "sub/alias/values.yaml"},
	}
	for name, args := range inside {
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t).enter()
			w.gpuChart("charts/ok")
			w.link("../charts/ok", "sub/alias")
			r := drv(t, append([]string{"check"}, args...)...)
			if r.code != exitFindings || !strings.Contains(r.stdout, "DRV010 unschedulable-affinity  Pod/ml/trainer") ||
				!strings.Contains(r.stdout, "2 object(s) checked") {
				t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// A side of diff is read as NEW is: a side that cannot be read, or holds
// no configuration of the operator, is exit 2, never an empty OLD and "a
// full rollout".
func TestAttackDiffSidesAreReadAlike(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for i, prev := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		ref := string(rune('a' + i))
		bomb += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", prev, prev, ref, ref, ref, ref, ref, ref, ref, ref, ref)
	}
	fixture := map[string]string{}
	for _, name := range []string{"base.yaml", "driver.yaml", "nodes.yaml", "images.csv"} {
		fixture[name] = readFile(t, opFile("change/"+name))
	}
	cases := map[string]struct {
		build func(w *workspace) string
		want  string
	}{
		"folder linked out": {func(w *workspace) string {
			w.homeFile("old/cp.yaml", fixture["base.yaml"])
			w.link(filepath.Join(w.home, "old"), "old")
			return "old"
		}, "old: not read: a symbolic link outside the repository"},
		"file linked out": {func(w *workspace) string {
			w.homeFile("old.yaml", fixture["base.yaml"])
			w.link(filepath.Join(w.home, "old.yaml"), "old.yaml")
			return "old.yaml"
		}, "old.yaml: not read: a symbolic link outside the repository"},
		"YAML alias bomb": {func(w *workspace) string {
			w.file("old.yaml", bomb)
			return "old.yaml"
		}, "old.yaml holds no GPU Operator configuration"},
		"values file that is a list": {func(w *workspace) string {
			w.file("old.yaml", "- driver\n- version\n")
			return "old.yaml"
		}, "old.yaml holds no GPU Operator configuration"},
		"values file that is a scalar": {func(w *workspace) string {
			w.file("old.yaml", "595.91.07\n")
			return "old.yaml"
		}, "old.yaml holds no GPU Operator configuration"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorkspace(t).enter()
			w.file("new.yaml", fixture["driver.yaml"])
			w.file("nodes.yaml", fixture["nodes.yaml"])
			w.file("images.csv", fixture["images.csv"])
			old := c.build(w)
			r := drv(t, "diff", old, "new.yaml", "nodes.yaml", "--matrix", "images.csv")
			if r.code != exitError || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d; want exit 2 and %q\n%s%s", r.code, c.want, r.stdout, r.stderr)
			}
			w.noLeak(r)
			// The same file as NEW gives the same error.
			if strings.Contains(c.want, "holds no") {
				r = drv(t, "diff", "new.yaml", old, "nodes.yaml", "--matrix", "images.csv")
				if r.code != exitError || !strings.Contains(r.stderr, c.want) {
					t.Errorf("as NEW: exit %d\n%s", r.code, r.stderr)
				}
			}
		})
	}
}

// Two values files are the chart's one ClusterPolicy: the same content
// under two paths is a no-op, and only imagePullPolicy changed is
// restart-only (transforms_test.go:4828-4889: not in the digest).
func TestDiffValuesFilesAreNamedForWhatTheyConfigure(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "b.yaml")
	pull := filepath.Join(dir, "pull.yaml")
	values := "operator: {version: v26.7.0}\ndriver: {version: \"595.91.07\", manager: {version: v0.12.0}}\n"
	writeFile(t, a, values)
	writeFile(t, b, values)
	writeFile(t, pull, strings.Replace(values, "driver: {", "driver: {imagePullPolicy: Always, ", 1))
	images := filepath.Join(dir, "images.csv")
	writeFile(t, images, "image\nnvcr.io/nvidia/driver:595.91.07-ubuntu22.04\nnvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.12.0\n")

	c, code := diffJSONArgs(t, "diff", a, b, opFile("change/nodes.yaml"), "--matrix", images)
	if c.Verdict != change.NoOp || code != 0 || len(c.Scopes) != 1 || c.Scopes[0].Owner != "ClusterPolicy/cluster-policy" {
		t.Errorf("same values, two paths: %s (exit %d) %+v %+v", c.Verdict, code, c.Scopes, c.Nodes)
	}
	c, _ = diffJSONArgs(t, "diff", a, pull, opFile("change/nodes.yaml"), "--matrix", images)
	if c.Verdict != change.RestartOnly || len(c.Nodes) != 3 || c.Nodes[0].Kind != change.RestartOnly {
		t.Errorf("imagePullPolicy: %s %+v", c.Verdict, c.Nodes)
	}
}

// An NVIDIADriver added whose nodeSelector overlaps another's leaves the
// operator assigning no owner (nvidiadriver_controller.go): the nodes
// lose their driver pod. They are counted as removed, never rolled, and
// the change fails the run.
func TestDiffRemovedNodesAreCountedNotRolled(t *testing.T) {
	dir := t.TempDir()
	old := "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: cluster-policy}\nspec:\n  driver: {useNvidiaDriverCRD: true}\n" +
		"---\napiVersion: nvidia.com/v1alpha1\nkind: NVIDIADriver\nmetadata: {name: ubuntu}\nspec:\n  driverType: gpu\n  repository: nvcr.io/nvidia\n  image: driver\n  version: 595.91.07\n  nodeSelector: {feature.node.kubernetes.io/system-os_release.ID: ubuntu}\n"
	overlap := old + "---\napiVersion: nvidia.com/v1alpha1\nkind: NVIDIADriver\nmetadata: {name: all-gpus}\nspec:\n  driverType: gpu\n  repository: nvcr.io/nvidia\n  image: driver\n  version: 595.91.07\n  nodeSelector: {nvidia.com/gpu.present: \"true\"}\n"
	writeFile(t, filepath.Join(dir, "old.yaml"), old)
	writeFile(t, filepath.Join(dir, "new.yaml"), overlap)
	args := []string{"diff", filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml"), opFile("change/nodes.yaml"),
		"--matrix", opFile("change/images.csv"), "--operator-version", "v26.7.0"}
	r := drv(t, args...)
	if r.code != exitFindings || !strings.Contains(r.stdout, "Nodes: 0 full rollout, 0 restart-only, 0 no-op, 3 removed") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var c plan.Change
	r = drv(t, append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || c.Rolling == nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	for _, n := range c.Rolling.Nodes {
		if n.Outcome != plan.Skipped || len(n.Evicted) != 0 || !strings.Contains(n.Note, "loses its driver pod") {
			t.Errorf("a node that loses its driver was rolled: %+v", n)
		}
	}
}

// pre-commit appends the staged file names after the hook's args: after
// "--", a file named like a flag is a file, never a report path or a
// baseline the repository chooses.
func TestAttackFileNamesThatLookLikeFlags(t *testing.T) {
	w := newWorkspace(t).enter()
	cm := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}`
	w.file("--report=json=pwned.json", cm)
	w.file("--baseline=base.json", cm)
	r := drv(t, "check", "--", "--report=json=pwned.json", "--baseline=base.json")
	if r.code != exitOK || !strings.Contains(r.stdout, "2 object(s) checked") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.repo, "pwned.json")); err == nil {
		t.Error("a file name chose a report path")
	}
}

// A baseline is read as a stream: at 200 MB it stays within 1 GiB and
// seconds (held whole and decoded at once it took 2 GB and half a
// minute).
func TestAttackLargeBaselineIsBounded(t *testing.T) {
	bin := builtDrvcheck(t)
	w := newWorkspace(t)
	w.gpuChart("charts/ok")
	// Written as a stream: a test process that held 200 MB would be what
	// the child's peak measures (a vfork'd child's maxrss starts at its
	// parent's).
	f, err := os.Create(filepath.Join(w.repo, "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := bufio.NewWriter(f)
	size := 0
	fmt.Fprint(b, `{"findings": [`)
	for i := 0; size < 200<<20; i++ {
		if i > 0 {
			fmt.Fprint(b, ",")
		}
		n, _ := fmt.Fprintf(b, `{"rule": "DRV010", "title": "unschedulable-affinity", "severity": "error", "object": {"kind": "Deployment", "namespace": "ns%d", "name": "w%d"}, "message": "0/1 nodes match: node(s) didn't match Pod's node affinity/selector %d", "file": "k8s/w%d.yaml", "line": 3}`, i%100, i, i, i)
		size += n + 1
	}
	fmt.Fprint(b, `], "summary": {}}`)
	if err := b.Flush(); err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	out, code, took, rss := w.measure(bin, "check", "charts/ok", "--baseline", "base.json")
	t.Logf("200 MB baseline: exit %d in %s, peak %d MiB", code, took.Round(time.Millisecond), rss>>20)
	if code != exitFindings || !strings.Contains(out, "new, 0 existing against the baseline") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if rss > 1<<30 || took > 30*time.Second {
		t.Errorf("took %s, peak %d MiB; want within 30 s and 1 GiB", took, rss>>20)
	}
}

// Nothing waits for good: a named pipe no one reads is refused as a
// report or a snapshot, and one no one writes, named on the command line,
// ends at --timeout. snapshot takes --timeout as every command does.
func TestAttackPipesDoNotHang(t *testing.T) {
	w := newWorkspace(t).enter()
	w.gpuChart("charts/ok")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"snapshot to a pipe no one reads": {[]string{"snapshot", "nodes", "charts/ok", "--timeout", "5s", "--file", fifo}, "--file " + fifo + ": not written: a named pipe nobody reads"},
		"report to a pipe no one reads":   {[]string{"check", "charts/ok", "--report", "json=" + fifo}, "--report " + fifo + ": not written: a named pipe nobody reads"},
		"a pipe no one writes":            {[]string{"check", fifo, "--timeout", "2s"}, fifo + ": not read to its end by the run's deadline (--timeout)"},
		"a profile to a pipe":             {[]string{"check", "charts/ok", "--profile", "cpu=" + fifo}, "--profile cpu: "},
	} {
		t.Run(name, func(t *testing.T) {
			done := make(chan result, 1)
			go func() { done <- drv(t, c.args...) }()
			select {
			case r := <-done:
				if r.code != exitError || !strings.Contains(r.stderr, c.want) {
					t.Errorf("exit %d %q; want exit 2 and %q", r.code, r.stderr, c.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("hangs")
			}
		})
	}
}

// Paths the user names are read as named: a process substitution
// (/dev/fd/N) and /dev/stdin are pipes, read within the limits.
func TestAttackDescriptorsTheUserNamesAreRead(t *testing.T) {
	bin := builtDrvcheck(t)
	w := newWorkspace(t)
	w.gpuChart("charts/ok")
	nodes := "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-a100\n  labels: {nvidia.com/gpu.present: \"true\"}\n"
	for name, args := range map[string][]string{
		"process substitution": {"check", "/dev/fd/3", "--fail-on", "none"},
		"/dev/stdin":           {"check", "/dev/stdin", "--fail-on", "none"},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Dir, cmd.Env = w.repo, []string{"HOME=" + w.home}
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdin, cmd.ExtraFiles = rd, []*os.File{rd}
			go func() { _, _ = wr.WriteString(nodes); wr.Close() }()
			out, err := cmd.CombinedOutput()
			rd.Close()
			if err != nil || !strings.Contains(string(out), "1 GPU node(s), 1 object(s) checked") {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
}

// Every format escapes what a manifest may put in a name (ESC, BEL), and
// bounds a value's printed length: text did, github and markdown did not,
// and a changed label value of 4 MB printed 7 MB.
func TestAttackFormatsEscapeAndBound(t *testing.T) {
	fixture := map[string]string{}
	for _, name := range []string{"base.yaml", "labels.yaml", "nodes.yaml", "images.csv"} {
		fixture[name] = readFile(t, opFile("change/"+name))
	}
	w := newWorkspace(t).enter()
	w.file("nodes.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: \"gpu\\e]0;pwned\\a\"\n  labels: {nvidia.com/gpu.present: \"true\"}\n")
	for _, format := range []string{"text", "github", "markdown"} {
		r := drv(t, "check", "nodes.yaml", "-o", format)
		if r.code == exitError || !strings.Contains(r.stdout, `gpu\x1b]0;pwned\a`) || strings.ContainsAny(r.stdout, "\x1b\x07") {
			t.Errorf("-o %s: exit %d %q", format, r.code, r.stdout)
		}
	}
	for name, content := range fixture {
		w.file(name, content)
	}
	w.file("big.yaml", strings.Replace(fixture["labels.yaml"], "team: ", "team: "+strings.Repeat("x", 4<<20), 1))
	r := drv(t, "diff", "base.yaml", "big.yaml", "nodes.yaml", "--matrix", "images.csv", "--operator-version", "v26.7.0")
	if r.code == exitError || len(r.stdout) > 64<<10 || !strings.Contains(r.stdout, "more bytes)") {
		t.Errorf("exit %d, %d bytes printed: %.300s %s", r.code, len(r.stdout), r.stdout, r.stderr)
	}
}

// Counts a repository writes are bounded: a node labelled with a trillion
// GPUs beside a DRA claim (devices are made per GPU), and a
// LeaderWorkerSet of two billion replicas (a gang is packed pod by pod),
// end within seconds and 1 GiB.
func TestAttackGPUCountsAreBounded(t *testing.T) {
	bin := builtDrvcheck(t)
	w := newWorkspace(t)
	w.file("fleet.yaml", `apiVersion: v1
kind: Node
metadata:
  name: huge
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.count: "1000000000000", nvidia.com/gpu.replicas: "1000000000000",
    nvidia.com/gpu.sharing-strategy: time-slicing, nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {namespace: ml, name: any}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm, namespace: ml}
spec:
  replicas: 2147483647
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers: [{name: c, image: vllm, resources: {limits: {nvidia.com/gpu.shared: "1"}}}]
`)
	out, code, took, rss := w.measure(bin, "check", "fleet.yaml", "--fail-on", "none")
	if code != exitOK || took > 30*time.Second || rss > 1<<30 || !strings.Contains(out, "object(s) checked") {
		t.Errorf("exit %d in %s, peak %d MiB:\n%s", code, took, rss>>20, out)
	}
}

// measure runs the built binary in the workspace's repository with its
// HOME, as a user's process: its output, exit code, wall time and peak
// memory (ru_maxrss counts the sandbox it reaped).
func (w *workspace) measure(bin string, args ...string) (string, int, time.Duration, int64) {
	w.t.Helper()
	start := time.Now()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = w.repo, []string{"HOME=" + w.home}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		w.t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode(), time.Since(start), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}
