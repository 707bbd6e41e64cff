package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// The release image: one image per architecture under an index, pushed to
// a registry (go-containerregistry's, in process), where a client pulling
// for linux/arm64 gets the arm64 image and its binary.
func TestPushMultiArch(t *testing.T) {
	dir := t.TempDir()
	amd, arm := filepath.Join(dir, "amd64"), filepath.Join(dir, "arm64")
	for path, content := range map[string]string{amd: "amd64 binary", arm: "arm64 binary"} {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bins, err := ParseBinaries("amd64=" + amd + ",arm64=" + arm)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := Index(Options{Version: "v1.2.3"}, bins)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(registry.New())
	defer srv.Close()
	ref := strings.TrimPrefix(srv.URL, "http://") + "/drvcheck/drvcheck:v1.2.3"
	digest, err := Push(ref, idx)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := name.ParseReference(ref)
	got, err := remote.Index(r)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := got.IndexManifest()
	if d, _ := got.Digest(); d != digest || len(m.Manifests) != 2 ||
		m.Manifests[0].Platform.Architecture != "amd64" || m.Manifests[1].Platform.Architecture != "arm64" {
		t.Fatalf("index %s: %+v", d, m.Manifests)
	}
	img, err := remote.Image(r, remote.WithPlatform(v1.Platform{OS: "linux", Architecture: "arm64"}))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigFile()
	if e := extract(t, img)["drvcheck"]; cfg.Architecture != "arm64" || e == nil || string(e.data) != "arm64 binary" {
		t.Errorf("linux/arm64 pull: arch %s, binary %v", cfg.Architecture, e)
	}
	if _, err := ParseBinaries("amd64"); err == nil {
		t.Error("ParseBinaries accepted a pair without a path")
	}
}
