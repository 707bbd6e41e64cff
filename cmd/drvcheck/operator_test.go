package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
	"github.com/drvcheck/drvcheck/internal/testcluster"
)

func opFile(name string) string { return filepath.Join("..", "..", "testdata", "operator", name) }

// operatorRegistry serves the driver images of tags at REPO/nvidia/driver,
// which every test passes as --driver-repository so that none lists nvcr.io.
func operatorRegistry(t *testing.T, tags ...string) string {
	t.Helper()
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", tags...)
	return s.Repo("nvidia/driver")
}

func findingsOf(rep jsonReport, rule string) []string {
	var out []string
	for _, f := range rep.byRule(rule) {
		out = append(out, f.Object.String())
	}
	slices.Sort(out)
	return out
}

// The Helm default (not precompiled, 550.90.07) under a ClusterPolicy: a
// new node without a driver is checked and never DRV002; a node whose
// driver is pre-installed is not audited.
func TestOperatorClusterPolicyFleet(t *testing.T) {
	repo := operatorRegistry(t, "550.90.07-ubuntu22.04")
	cache := "--cache-dir=" + t.TempDir()
	args := []string{opFile("nodes.yaml"), opFile("clusterpolicy.yaml"), "--driver-repository", repo, cache}
	rep := drvJSON(t, append([]string{"check"}, args...)...)
	if len(rep.byRule("DRV001")) != 0 || len(rep.byRule("DRV002")) != 0 {
		t.Errorf("findings: %+v", rep.Findings)
	}
	drv(t, append([]string{"audit"}, args...)...).want(t, 0, "OK\n")
	for node, want := range map[string]string{"gpu-new": "550.90.07-ubuntu22.04\n", "gpu-old": "550.90.07-ubuntu22.04\n"} {
		drv(t, "tag", node, opFile("nodes.yaml"), opFile("clusterpolicy.yaml")).want(t, 0, want)
	}
	r := drv(t, "tag", "gpu-new", opFile("nodes.yaml"), opFile("clusterpolicy.yaml"), "--ref", "--driver-repository", repo)
	r.want(t, 0, repo+":550.90.07-ubuntu22.04\n")
	// status says why gpu-host gets no driver.
	st := drv(t, append([]string{"status", "-o", "json"}, args...)...)
	if st.code != 0 || !strings.Contains(st.stdout, `"image": "none",`) ||
		!strings.Contains(st.stdout, `"reason": "nvidia.com/gpu.deploy.driver=pre-installed"`) {
		t.Errorf("status: exit %d %s%s", st.code, st.stdout, st.stderr)
	}

	// Without the image: the two managed nodes are missing it, not gpu-host.
	empty := operatorRegistry(t, "535-5.15.0-107-generic-ubuntu22.04")
	args = []string{opFile("nodes.yaml"), opFile("clusterpolicy.yaml"), "--driver-repository", empty, "--cache-dir=" + t.TempDir()}
	drv(t, append([]string{"audit"}, args...)...).want(t, 1, "gpu-new MISSING 550.90.07-ubuntu22.04\ngpu-old MISSING 550.90.07-ubuntu22.04\n")
	rep = drvJSON(t, append([]string{"check"}, args...)...)
	if got := findingsOf(rep, "DRV001"); !slices.Equal(got, []string{"Node/gpu-new", "Node/gpu-old"}) ||
		!strings.Contains(rep.byRule("DRV001")[0].Message, "no driver image "+empty+":550.90.07-ubuntu22.04 in ") {
		t.Errorf("DRV001: %+v", rep.byRule("DRV001"))
	}
}

// Precompiled with a branch gives <branch>-<kernel>-<os>; with a full
// version DRV003 names the ClusterPolicy's version line.
func TestOperatorPrecompiled(t *testing.T) {
	drv(t, "tag", "gpu-new", opFile("nodes.yaml"), opFile("clusterpolicy.yaml"), "--precompiled", "--driver-version", "550").
		want(t, 0, "550-5.15.0-119-generic-ubuntu22.04\n")
	repo := operatorRegistry(t, "550-5.15.0-119-generic-ubuntu22.04")
	rep := drvJSON(t, "check", opFile("nodes.yaml"), opFile("clusterpolicy-precompiled.yaml"), "--driver-repository", repo, "--cache-dir="+t.TempDir())
	got := rep.byRule("DRV003")
	if len(got) != 1 || got[0].Object.String() != "ClusterPolicy/cluster-policy" || got[0].Line != 11 ||
		!strings.HasSuffix(got[0].File, "clusterpolicy-precompiled.yaml") || !strings.Contains(got[0].Message, "precompiled tags name the branch 550") {
		t.Errorf("DRV003: %+v", got)
	}
}

// The OS tag by operator version: Rocky keeps only its major version from
// v26.3.
func TestOperatorOSTagByVersion(t *testing.T) {
	base := []string{"tag", "gpu-rocky", opFile("rocky-node.yaml"), "--driver-version", "550.90.07"}
	drv(t, base...).want(t, 0, "550.90.07-rocky9\n")
	drv(t, append(base, "--operator-version", "v25.10.1")...).want(t, 0, "550.90.07-rocky9.8\n")
}

// Two OSes under one ClusterPolicy is DRV004; one NVIDIADriver per OS is
// not, and each pool gets its own OS tag.
func TestOperatorMixedOS(t *testing.T) {
	repo := operatorRegistry(t, "550.90.07-ubuntu22.04", "550.90.07-rocky9")
	cache := "--cache-dir=" + t.TempDir()
	rep := drvJSON(t, "check", opFile("nodes.yaml"), opFile("rocky-node.yaml"), opFile("clusterpolicy.yaml"), "--driver-repository", repo, cache)
	if got := rep.byRule("DRV004"); len(got) != 1 || !strings.Contains(got[0].Message, "they run rocky9, ubuntu22.04") {
		t.Errorf("DRV004 under a ClusterPolicy: %+v", got)
	}
	// Worst case first: with only the Ubuntu image, an Ubuntu node may get
	// the Rocky tag too, and that image is missing.
	ubuntuOnly := operatorRegistry(t, "550.90.07-ubuntu22.04")
	worst := drvJSON(t, "check", opFile("nodes.yaml"), opFile("rocky-node.yaml"), opFile("clusterpolicy.yaml"), "--driver-repository", ubuntuOnly, "--cache-dir="+t.TempDir())
	var ubuntu []string
	for _, f := range worst.byRule("DRV001") {
		if f.Node == "gpu-new" && f.Tag == "550.90.07-rocky9" && strings.Contains(f.Message, "which this node may pull: one ClusterPolicy gives every node") {
			ubuntu = append(ubuntu, f.Node)
		}
	}
	if len(ubuntu) != 1 || len(worst.byRule("DRV001")) != 3 {
		t.Errorf("worst case: %+v", worst.byRule("DRV001"))
	}
	rep = drvJSON(t, "check", opFile("nodes.yaml"), opFile("rocky-node.yaml"), opFile("nvidiadrivers.yaml"), "--driver-repository", repo, cache)
	if len(rep.byRule("DRV004")) != 0 || len(rep.byRule("DRV001")) != 0 || len(rep.byRule("DRV005")) != 0 {
		t.Errorf("under NVIDIADrivers: %+v", rep.Findings)
	}
	drv(t, "tag", "gpu-rocky", opFile("rocky-node.yaml"), opFile("nvidiadrivers.yaml")).want(t, 0, "550.90.07-rocky9\n")
}

func TestOperatorBadInput(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.yaml")
	writeFile(t, two, "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: a}\nspec: {driver: {version: \"550\"}}\n---\napiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: b}\nspec: {}\n")
	half := filepath.Join(dir, "half.yaml")
	writeFile(t, half, "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: half}\nspec: {driver: {repository: nvcr.io/nvidia}}\n")
	notYAML := filepath.Join(dir, "values.yaml")
	writeFile(t, notYAML, "driver: [\n")
	nodes := opFile("nodes.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", nodes, two}, "ClusterPolicy/a and ClusterPolicy/b: the operator reconciles one ClusterPolicy"},
		{[]string{"check", nodes, half}, "ClusterPolicy/half: set repository, image and version together (or image alone); the operator refuses only repository"},
		{[]string{"tag", "gpu-new", nodes, "--driver-version", "550", "--operator-version", "26.7"}, `--operator-version: operator version "26.7": want vMAJOR.MINOR.PATCH`},
		{[]string{"audit", nodes, "--operator-values", notYAML}, "--operator-values " + notYAML + ": not a values file"},
		{[]string{"tag", "gpu-new", nodes, "--driver-version", "latest"}, `Flags/drvcheck: version "latest" is neither a driver branch (550), a driver version (550.90.07) nor a digest`},
	} {
		r := drv(t, c.args...)
		if r.code != exitError || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// On a real control plane with the operator's CRDs installed, tag, audit
// and scan read the ClusterPolicy with no flag: its repository, version
// and the operator Deployment's release make every node's image.
func TestOperatorLive(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	kc := "--kubeconfig=" + c.Kubeconfig
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", "550.90.07-ubuntu22.04", "550.90.07-rocky9.8")
	kubectl(t, c, "apply", "-f", opFile("crds.yaml"))
	kubectl(t, c, "wait", "--for=condition=established", "--timeout=60s", "crd/clusterpolicies.nvidia.com", "crd/nvidiadrivers.nvidia.com")
	kubectl(t, c, "apply", "-f", opFile("nodes.yaml"), "-f", opFile("rocky-node.yaml"))
	dir := t.TempDir()
	policy := filepath.Join(dir, "clusterpolicy.yaml")
	writeFile(t, policy, "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: cluster-policy}\nspec:\n  driver:\n    repository: "+
		s.Host+"/nvidia\n    image: driver\n    version: 550.90.07\n")
	operator := filepath.Join(dir, "operator.yaml")
	writeFile(t, operator, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: gpu-operator, namespace: default}\nspec:\n  selector: {matchLabels: {app: gpu-operator}}\n"+
		"  template:\n    metadata: {labels: {app: gpu-operator}}\n    spec:\n      nodeSelector: {none: none}\n      containers: [{name: gpu-operator, image: nvcr.io/nvidia/gpu-operator:v25.10.1}]\n")
	kubectl(t, c, "apply", "-f", policy, "-f", operator)

	// v25.10.1 keeps rocky's minor version.
	drv(t, "tag", "gpu-rocky", kc).want(t, 0, "550.90.07-rocky9.8\n")
	drv(t, "tag", "gpu-new", kc, "--ref").want(t, 0, s.Host+"/nvidia/driver:550.90.07-ubuntu22.04\n")
	cache := "--cache-dir=" + t.TempDir()
	drv(t, "audit", kc, cache).want(t, 0, "OK\n")
	rep := drvJSON(t, "scan", kc, cache)
	if len(rep.byRule("DRV001")) != 0 || len(rep.byRule("DRV002")) != 0 || len(rep.byRule("DRV004")) != 1 {
		t.Errorf("scan: %+v", rep.Findings)
	}
	if f := rep.byRule("DRV004"); len(f) == 1 && (f[0].File != "" || !strings.Contains(f[0].Message, "they run rocky9.8, ubuntu22.04")) {
		t.Errorf("DRV004: %+v", f[0])
	}
}

// Air-gapped CI: with an operator profile and a --matrix, the matrix is
// the source of existing tags, and no registry is asked: --offline
// without any cache answers, and the profile's nvcr.io is never listed.
func TestOperatorProfileWithMatrixAsksNoRegistry(t *testing.T) {
	matrix := filepath.Join(t.TempDir(), "precompiled.csv")
	writeAt(t, matrix, "driver_branch,kernel,os_tag\n550,5.15.0-119-generic,ubuntu22.04\n")
	args := []string{opFile("nodes.yaml"), opFile("clusterpolicy.yaml"), "--precompiled", "--driver-version", "550",
		"--matrix", matrix, "--offline", "--cache-dir", t.TempDir()}
	r := drv(t, append([]string{"audit"}, args...)...)
	if r.code == exitError || strings.Contains(r.stderr, "nvcr.io") {
		t.Errorf("audit: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	// The image is nvcr.io's (the operator pulls it); the source looked
	// in is the matrix alone, and NVIDIA's build matrix says why the tag
	// is missing (it builds 580 and 595, rego/data/precompiled.json).
	rep := drvJSON(t, append([]string{"check"}, args...)...)
	if len(rep.byRule("DRV001")) == 0 {
		t.Fatal("no DRV001: the nodes' other kernels have no row")
	}
	for _, f := range rep.byRule("DRV001") {
		if !strings.Contains(f.Message, " in "+matrix+": NVIDIA builds no precompiled 550 driver") {
			t.Errorf("%s: %s; want the matrix as the only source, and why NVIDIA has no such image", f.Rule, f.Message)
		}
	}
}

// The OperatorHub ClusterPolicy sets none of repository, image and
// version: the operator takes its Deployment's DRIVER_IMAGE
// (clusterpolicy_types.go ImagePath). With that Deployment among the
// inputs, the tag is the env's image with the OS tag of the operator's
// release (v25.10.1: rocky9.8, raw); without it, the run answers and says
// what to give, and --driver-image stands in for the env.
func TestOperatorHubClusterPolicy(t *testing.T) {
	olm := func(name string) string { return opFile(filepath.Join("olm", name)) }
	drv(t, "tag", "gpu-rocky", opFile("rocky-node.yaml"), olm("clusterpolicy.yaml"), olm("operator.yaml")).
		want(t, 0, "580.95.05-rocky9.8\n")
	r := drv(t, "check", opFile("rocky-node.yaml"), olm("clusterpolicy.yaml"), "-o", "json")
	if r.code == exitError || !strings.Contains(r.stderr, "ClusterPolicy/gpu-cluster-policy sets none of repository, image and version") ||
		!strings.Contains(r.stderr, "--driver-image") {
		t.Errorf("without the Deployment: exit %d %s", r.code, r.stderr)
	}
	r = drv(t, "tag", "gpu-rocky", opFile("rocky-node.yaml"), olm("clusterpolicy.yaml"))
	if r.code != exitError || !strings.Contains(r.stderr, "no tag: ClusterPolicy/gpu-cluster-policy sets none of") {
		t.Errorf("tag without the Deployment: exit %d %s", r.code, r.stderr)
	}
	drv(t, "tag", "gpu-rocky", opFile("rocky-node.yaml"), olm("clusterpolicy.yaml"), "--driver-image", "registry.local/nvidia/driver:570.124.06", "--operator-version", "v26.7.0").
		want(t, 0, "570.124.06-rocky9\n")
	// With a source of tags, an image the inputs cannot give is no pass:
	// check reports it under DRV001, and audit cannot say OK.
	matrix := writeAt(t, filepath.Join(t.TempDir(), "m.csv"), "tag\n580.95.05-rocky9.8\n")
	r = drv(t, "audit", opFile("rocky-node.yaml"), olm("clusterpolicy.yaml"), "--matrix", matrix)
	if r.code != exitError || !strings.Contains(r.stderr, "the driver image of gpu-rocky cannot be known from the inputs") {
		t.Errorf("audit: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	drv(t, "audit", opFile("rocky-node.yaml"), olm("clusterpolicy.yaml"), olm("operator.yaml"), "--matrix", matrix).want(t, 0, "OK\n")
}

// The operator as GitOps repositories install it: the gpu-operator chart
// from NVIDIA's Helm repository by an Argo CD Application, a Flux
// HelmRelease or a K3s/RKE2 HelmChart. Their inline values are the
// operator's configuration (typed as the chart types them: version 570
// unquoted), their chart version its release (the OS tag of Rocky 9.8 is
// rocky9.8 before v26.3, rocky9 from it), and tag needs no other flag.
func TestOperatorInstalledByGitOps(t *testing.T) {
	gitops := func(name string) string { return opFile(filepath.Join("gitops", name)) }
	for file, want := range map[string]string{
		"argocd-application.yaml": "580-5.14.0-570.12.1.el9_6.x86_64-rocky9\n", // the parameter over valuesObject
		"helmrelease.yaml":        "570-5.14.0-570.12.1.el9_6.x86_64-rocky9.8\n",
		"helmchart.yaml":          "580-5.14.0-570.12.1.el9_6.x86_64-rocky9\n",
	} {
		r := drv(t, "tag", "gpu-rocky", opFile("rocky-node.yaml"), gitops(file))
		r.want(t, 0, want)
		if !strings.Contains(r.stderr, "its inline values are read as the GPU Operator's configuration") {
			t.Errorf("%s: stderr %q", file, r.stderr)
		}
	}
	r := drv(t, "tag", "gpu-rocky", opFile("rocky-node.yaml"), gitops("helmchart.yaml"), "--ref")
	r.want(t, 0, "registry.local/nvidia/driver:580-5.14.0-570.12.1.el9_6.x86_64-rocky9\n") // spec.set
}

// The driver pod's other images are checked like the driver's: GDS's
// nvidia-fs image is published for Ubuntu 20.04 only, so the Ubuntu
// 22.04 nodes lack it, and DRV001 names the GDS image (gpu-operator#690).
// The driver manager's image, which has no OS suffix, exists.
func TestOperatorMissingGDSImage(t *testing.T) {
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", "550.90.07-ubuntu22.04")
	s.Push(t, "nvidia/cloud-native/k8s-driver-manager", "v0.8.1")
	s.Push(t, "nvidia/cloud-native/nvidia-fs", "2.17.5-ubuntu20.04")
	cp := filepath.Join(t.TempDir(), "clusterpolicy.yaml")
	writeFile(t, cp, strings.ReplaceAll(readFile(t, opFile("gds/clusterpolicy.yaml")), "REGISTRY", s.Host))
	args := []string{opFile("nodes.yaml"), cp, "--cache-dir=" + t.TempDir()}
	rep := drvJSON(t, append([]string{"check"}, args...)...)
	got := rep.byRule("DRV001")
	want := "no GDS image " + s.Host + "/nvidia/cloud-native/nvidia-fs:2.17.5-ubuntu22.04 (spec.gds) in " + s.Host + "/nvidia/cloud-native/nvidia-fs"
	if len(got) != 2 || !strings.HasPrefix(got[0].Message, want) || got[0].Node != "gpu-new" || got[1].Node != "gpu-old" {
		t.Errorf("DRV001: want 2 findings %q, got %+v", want, got)
	}
	drv(t, append([]string{"audit"}, args...)...).want(t, 1,
		"gpu-new MISSING "+s.Host+"/nvidia/cloud-native/nvidia-fs:2.17.5-ubuntu22.04\ngpu-old MISSING "+s.Host+"/nvidia/cloud-native/nvidia-fs:2.17.5-ubuntu22.04\n")

	// Published for 22.04 too: nothing is missing.
	s.Push(t, "nvidia/cloud-native/nvidia-fs", "2.17.5-ubuntu22.04")
	rep = drvJSON(t, append([]string{"check", "--cache-ttl=0"}, args...)...)
	if got := rep.byRule("DRV001"); len(got) != 0 {
		t.Errorf("DRV001 with the image pushed: %+v", got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A Blackwell node with GFD's labels (k8s-device-plugin#1682): under
// proprietary modules DRV041; under auto with a 550 driver DRV042, and
// DRV040 as 550 predates Blackwell.
func TestOperatorKernelModuleTypeOnBlackwell(t *testing.T) {
	nodes, images := opFile("compat/nodes.yaml"), "--matrix="+opFile("compat/images.csv")
	rep := drvJSON(t, "check", nodes, opFile("compat/clusterpolicy-proprietary.yaml"), images)
	if got := rep.byRule("DRV041"); len(got) != 1 || got[0].Node != "dgx-b300-0" ||
		!strings.Contains(got[0].Message, "installs the proprietary kernel modules: Blackwell is driven only by the open modules") {
		t.Errorf("proprietary: DRV041 %+v", got)
	}
	if got := rep.byRule("DRV040"); len(got) != 0 {
		t.Errorf("proprietary on 580: DRV040 %+v", got)
	}
	rep = drvJSON(t, "check", nodes, opFile("compat/clusterpolicy-auto-550.yaml"), images)
	if got := rep.byRule("DRV042"); len(got) != 1 || got[0].Object.String() != "ClusterPolicy/cluster-policy" || got[0].Line != 13 {
		t.Errorf("auto on 550: DRV042 %+v", got)
	}
	if got := rep.byRule("DRV040"); len(got) != 1 || !strings.HasSuffix(got[0].Message, "Blackwell needs R570 or later") {
		t.Errorf("auto on 550: DRV040 %+v", got)
	}
	if got := rep.byRule("DRV041"); len(got) != 0 {
		t.Errorf("auto: DRV041 %+v", got)
	}
}

// tag --images lists every image of the driver pod, as composed.
func TestTagImages(t *testing.T) {
	cp := filepath.Join(t.TempDir(), "clusterpolicy.yaml")
	writeFile(t, cp, strings.ReplaceAll(readFile(t, opFile("gds/clusterpolicy.yaml")), "REGISTRY", "registry.example.com"))
	drv(t, "tag", "gpu-new", opFile("nodes.yaml"), cp, "--images").want(t, 0,
		"driver registry.example.com/nvidia/driver:550.90.07-ubuntu22.04\n"+
			"driver-manager registry.example.com/nvidia/cloud-native/k8s-driver-manager:v0.8.1\n"+
			"gds registry.example.com/nvidia/cloud-native/nvidia-fs:2.17.5-ubuntu22.04\n")
}
