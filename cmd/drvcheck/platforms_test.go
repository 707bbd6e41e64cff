package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// An arm64 node (a GH200: its Grace CPU is ARM, marin-community/marin#5446)
// on Ubuntu 24.04 whose precompiled tag exists: NVIDIA publishes one
// multi-arch index per tag (gpu-driver-container multi-arch.mk), so the
// tag's index, read from Debian's docker-registry, decides. The node's
// other labels are made up to the tag's needs.
const arm64Node = `apiVersion: v1
kind: Node
metadata:
  name: gh200-0
  labels:
    kubernetes.io/arch: arm64
    kubernetes.io/os: linux
    nvidia.com/gpu.present: "true"
    nvidia.com/gpu.product: NVIDIA-GH200-480GB
    nvidia.com/cuda.driver-version.major: "580"
    feature.node.kubernetes.io/kernel-version.full: 6.8.0-1015-nvidia-64k
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "24.04"
`

func TestArchFromTheRegistrysIndex(t *testing.T) {
	d := startDistribution(t, distributionBinary(t), false)
	dir := t.TempDir()
	nodes := filepath.Join(dir, "node.yaml")
	if err := os.WriteFile(nodes, []byte(arm64Node), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := d.repo("nvidia/driver")
	tag := "580-6.8.0-1015-nvidia-64k-ubuntu24.04"
	cache := t.TempDir()
	check := func(cache string, flags ...string) result {
		return drv(t, append([]string{"check", nodes, "--driver-version", "580", "--precompiled", "--driver-repository", repo,
			"--registry", repo, "--cache-dir", cache, "-o", "json"}, flags...)...)
	}

	d.pushIndex(t, "nvidia/driver", tag, "amd64")
	want := repo + ":" + tag + " exists, but not for gh200-0, which is arm64: it is built for amd64 only"
	// Online, then offline from what the first run cached.
	for _, flags := range [][]string{nil, {"--offline"}} {
		r := check(cache, flags...)
		if r.code != exitFindings || !strings.Contains(r.stdout, want) {
			t.Fatalf("amd64-only index %v: exit %d, want a DRV001 %q:\n%s\n%s", flags, r.code, want, r.stdout, r.stderr)
		}
	}

	d.pushIndex(t, "nvidia/driver", tag, "amd64", "arm64")
	if r := check(t.TempDir()); r.code != exitOK || strings.Contains(r.stdout, "DRV001") {
		t.Fatalf("an index with arm64: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// pushIndex pushes, under tag, an index of one small random image per
// architecture, each with its platform, as a multi-arch build does.
func (d *distribution) pushIndex(t *testing.T, repo, tag string, arches ...string) {
	t.Helper()
	var idx v1.ImageIndex = empty.Index
	for _, arch := range arches {
		img, err := random.Image(128, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		cfg = cfg.DeepCopy()
		cfg.OS, cfg.Architecture = "linux", arch
		if img, err = mutate.ConfigFile(img, cfg); err != nil {
			t.Fatal(err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}}})
	}
	ref, err := name.NewTag(d.repo(repo) + ":" + tag)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx, remote.WithTransport(&http.Transport{TLSClientConfig: d.tlsConfig(t)})); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
}

// A pull request's check reads no registry: a matrix with an arch column
// says which architectures each tag is built for, with the node's own
// labels giving its tag (no operator profile).
func TestArchFromTheMatrix(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "node.yaml")
	matrix := filepath.Join(dir, "matrix.csv")
	if err := os.WriteFile(nodes, []byte(arm64Node), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := "driver_branch,kernel,os_tag,arch\n580,6.8.0-1015-nvidia-64k,ubuntu24.04,amd64\n"
	if err := os.WriteFile(matrix, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	r := drv(t, "check", nodes, "--matrix", matrix, "-o", "json")
	want := "580-6.8.0-1015-nvidia-64k-ubuntu24.04 exists, but not for gh200-0, which is arm64: it is built for amd64 only"
	if r.code != exitFindings || !strings.Contains(r.stdout, want) {
		t.Fatalf("amd64 row only: exit %d, want a DRV001 %q:\n%s\n%s", r.code, want, r.stdout, r.stderr)
	}
	if err := os.WriteFile(matrix, []byte(rows+"580,6.8.0-1015-nvidia-64k,ubuntu24.04,arm64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := drv(t, "check", nodes, "--matrix", matrix, "-o", "json"); strings.Contains(r.stdout, "DRV001") {
		t.Fatalf("an arm64 row: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
