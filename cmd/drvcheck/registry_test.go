package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
)

const (
	labDir        = "../../testdata/lab"
	labMatrixPath = "../../testdata/lab/support-matrix.csv"
	// labNode3Tag is the tag lab-node-3 needs, the one the lab's matrix lacks.
	labNode3Tag = "550-6.8.0-52-generic-ubuntu24.04"
)

// registryLabTags are the three tags the lab's registry has built.
var registryLabTags = []string{
	"550-5.15.0-119-generic-ubuntu22.04",
	"535-5.15.0-107-generic-ubuntu22.04",
	"550-6.8.0-45-generic-ubuntu24.04",
}

// want checks a run's exit code and standard output.
func (r result) want(t *testing.T, code int, stdout string) {
	t.Helper()
	if r.code != code || r.stdout != stdout {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q", r.code, r.stdout, r.stderr, code, stdout)
	}
}

// isolateDockerConfig points the default keychain at an empty docker
// config, so no test reads or depends on the machine's credentials.
func isolateDockerConfig(t *testing.T, config string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
}

func TestAuditWithRegistry(t *testing.T) {
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", registryLabTags...)
	repo := s.Repo("nvidia/driver")

	drv(t, "audit", labDir, "--registry", repo, "--cache-dir", t.TempDir()).
		want(t, 1, "lab-node-3 MISSING "+labNode3Tag+"\n")

	// The union: the matrix lacks lab-node-3's tag, a second repository has it.
	s.Push(t, "mirror/driver", labNode3Tag)
	drv(t, "audit", labDir, "--matrix", labMatrixPath, "--registry", s.Repo("mirror/driver"), "--cache-dir", t.TempDir()).
		want(t, 0, "OK\n")
	drv(t, "audit", labDir, "--registry", repo, "--registry", s.Repo("mirror/driver"), "--cache-dir", t.TempDir()).
		want(t, 0, "OK\n")

	// check names the registry in DRV001's message.
	r := drv(t, "check", labDir, "--registry", repo, "-o", "json", "--cache-dir", t.TempDir())
	if r.code != 1 || !strings.Contains(r.stdout, "no precompiled driver image "+labNode3Tag+" in "+repo) {
		t.Errorf("check: exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestRegistryFailuresExit2(t *testing.T) {
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", registryLabTags...)

	r := drv(t, "audit", labDir, "--registry", s.Repo("nvidia/nothing"), "--cache-dir", t.TempDir())
	wantErr := "drvcheck: registry " + s.Host + ": repository nvidia/nothing: repository not found (404 Not Found NAME_UNKNOWN)\n"
	if r.code != 2 || r.stdout != "" || r.stderr != wantErr {
		t.Errorf("unknown repository: exit %d, stdout %q, stderr %q; want 2 and %q", r.code, r.stdout, r.stderr, wantErr)
	}
	// A matrix that has every tag does not hide a failing registry.
	r = drv(t, "check", labDir, "--matrix", labMatrixPath, "--registry", s.Repo("nvidia/nothing"), "--cache-dir", t.TempDir())
	if r.code != 2 || !strings.Contains(r.stderr, "repository nvidia/nothing") {
		t.Errorf("check with a failing registry: exit %d, stderr %q", r.code, r.stderr)
	}
	s.Reset()
	r = drv(t, "audit", labDir, "--registry", s.Repo("nvidia/driver"), "--offline", "--cache-dir", t.TempDir())
	if r.code != 2 || !strings.Contains(r.stderr, "--offline: not in the cache") || s.Requests() != 0 {
		t.Errorf("offline without cache: exit %d, stderr %q, %d requests", r.code, r.stderr, s.Requests())
	}
	r = drv(t, "audit", labDir, "--registry", "nvcr.io/nvidia/driver:550")
	if r.code != 2 || !strings.Contains(r.stderr, "not an image repository") {
		t.Errorf("bad repository name: exit %d, stderr %q", r.code, r.stderr)
	}
	r = drv(t, "audit", labDir, "--registry", s.Repo("nvidia/driver"), "--registry-ca", filepath.Join(t.TempDir(), "absent.pem"))
	if r.code != 2 || !strings.Contains(r.stderr, "--registry-ca") {
		t.Errorf("absent CA file: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestWarmCacheAcrossRuns(t *testing.T) {
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", registryLabTags...)
	cache := t.TempDir()
	args := []string{"audit", labDir, "--registry", s.Repo("nvidia/driver"), "--cache-dir", cache}
	drv(t, args...).want(t, 1, "lab-node-3 MISSING "+labNode3Tag+"\n")
	if s.Listings("nvidia/driver") != 1 {
		t.Fatalf("first run: %d listings", s.Listings("nvidia/driver"))
	}
	// A MISSING answer never comes from the cache: inside the TTL, the
	// cached listing lacks lab-node-3's tag, so the registry is asked again.
	s.Reset()
	drv(t, args...).want(t, 1, "lab-node-3 MISSING "+labNode3Tag+"\n")
	if n := s.Listings("nvidia/driver"); n != 1 {
		t.Errorf("a tag missing from the cached listing: %d listings, want 1: %v", n, s.Log())
	}
	// Offline, the cache is all there is, and the answer says so.
	r := drv(t, append(args, "--offline")...)
	r.want(t, 1, "lab-node-3 MISSING "+labNode3Tag+"\n")
	if !strings.Contains(r.stderr, "a MISSING answer may be stale") {
		t.Errorf("offline: stderr %q", r.stderr)
	}
	// The image is pushed: the next run, inside the TTL, sees it.
	s.Push(t, "nvidia/driver", labNode3Tag)
	s.Reset()
	drv(t, args...).want(t, 0, "OK\n")
	// And with every tag in the cache, no request at all.
	s.Reset()
	drv(t, args...).want(t, 0, "OK\n")
	if n := s.Requests(); n != 0 {
		t.Errorf("every tag cached inside the TTL, yet %d requests: %v", n, s.Log())
	}
}

// Requests grow with repositories and pages, never with nodes.
func TestRequestsDoNotGrowWithNodes(t *testing.T) {
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", registryLabTags...)
	count := func(nodes int) int {
		dir := t.TempDir()
		writeNodes(t, filepath.Join(dir, "nodes.yaml"), nodes, registryLabTags)
		s.Reset()
		drv(t, "audit", dir, "--registry", s.Repo("nvidia/driver"), "--cache-dir", t.TempDir()).want(t, 0, "OK\n")
		return s.Requests()
	}
	few, many := count(3), count(300)
	if few == 0 || few != many {
		t.Errorf("3 nodes: %d requests, 300 nodes: %d; want the same, non-zero", few, many)
	}
}

// writeNodes writes n GPU nodes whose tags cycle through tags.
func writeNodes(t testing.TB, path string, n int, tags []string) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		branch, rest, _ := strings.Cut(tags[i%len(tags)], "-")
		kernel := rest[:strings.LastIndex(rest, "-")]
		osVersion := strings.TrimPrefix(rest[len(kernel)+1:], "ubuntu")
		b.WriteString("---\n" + fleetgen.GPUNode(fmt.Sprintf("gpu-%05d", i), branch, kernel, osVersion))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTagCheck(t *testing.T) {
	isolateDockerConfig(t, "{}")
	s := registrytest.New(t)
	s.Push(t, "nvidia/driver", registryLabTags...)
	repo := s.Repo("nvidia/driver")
	cache := t.TempDir()

	// Plain tag stays one line, and asks no registry.
	drv(t, "tag", "lab-node-0", labDir, "--registry", repo, "--cache-dir", cache).
		want(t, 0, "550-5.15.0-119-generic-ubuntu22.04\n")
	if s.Requests() != 0 {
		t.Errorf("plain tag sent %d requests", s.Requests())
	}
	drv(t, "tag", "lab-node-0", labDir, "--check", "--matrix", labMatrixPath, "--registry", repo, "--cache-dir", cache).
		want(t, 0, "550-5.15.0-119-generic-ubuntu22.04 PRESENT in "+labMatrixPath+", "+repo+"\n")
	drv(t, "tag", "lab-node-1", labDir, "--check", "--registry", repo, "--cache-dir", cache).
		want(t, 0, "535-5.15.0-107-generic-ubuntu22.04 PRESENT in "+repo+"\n")
	drv(t, "tag", "lab-node-3", labDir, "--check", "--matrix", labMatrixPath, "--registry", repo, "--cache-dir", cache).
		want(t, 1, labNode3Tag+" MISSING from "+labMatrixPath+", "+repo+"\n")
	// The image is pushed; the cached listing lacks it, so MISSING is not
	// taken from the cache: the registry is asked and says PRESENT.
	s.Push(t, "nvidia/driver", labNode3Tag)
	drv(t, "tag", "lab-node-3", labDir, "--check", "--registry", repo, "--cache-dir", cache).
		want(t, 0, labNode3Tag+" PRESENT in "+repo+"\n")
	r := drv(t, "tag", "lab-node-3", labDir, "--check")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "needs --matrix or --registry") {
		t.Errorf("tag --check without sources: %+v", r)
	}
	r = drv(t, "tag", "lab-node-3", labDir, "--check", "--registry", s.Repo("nvidia/nothing"), "--cache-dir", cache)
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "repository not found") {
		t.Errorf("tag --check, unknown repository: %+v", r)
	}
}

// .drvcheck.yaml carries registry, and, trusted, registry-ca (relative to
// the file) and insecure-registry, like the flags.
func TestRegistryFromConfigFile(t *testing.T) {
	isolateDockerConfig(t, "{}")
	s := registrytest.NewTLS(t)
	s.Push(t, "nvidia/driver", append(registryLabTags, labNode3Tag)...)
	dir := t.TempDir()
	s.CAFile(t, dir) // dir/ca.pem
	conf := filepath.Join(dir, ".drvcheck.yaml")
	content := fmt.Sprintf("registry: [%s]\nregistry-ca: [ca.pem]\ninsecure-registry: [mirror.invalid]\n", s.Repo("nvidia/driver"))
	if err := os.WriteFile(conf, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	drv(t, "audit", labDir, "--config", conf, "--trust-config", "--cache-dir", t.TempDir()).want(t, 0, "OK\n")
	// Without the CA from the file, the certificate is not trusted.
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("registry: [%s]\n", s.Repo("nvidia/driver"))), 0o644); err != nil {
		t.Fatal(err)
	}
	r := drv(t, "audit", labDir, "--config", conf, "--cache-dir", t.TempDir())
	if r.code != 2 || !strings.Contains(r.stderr, "TLS certificate not trusted") {
		t.Errorf("config without registry-ca: %+v", r)
	}
}
