package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// buildDrvcheck builds the static binary make image puts in the image.
func buildDrvcheck(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "drvcheck")
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version=imagetest -X main.commit=abc123",
		"-o", bin, "./cmd/drvcheck")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestImageRunsVersion builds the layout as make image does, reads it back
// with go-containerregistry's layout package, extracts the file system, and
// runs the entrypoint the config names with "version".
func TestImageRunsVersion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image holds a linux binary")
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := Options{Binary: buildDrvcheck(t, dir), CABundle: ca, Out: filepath.Join(dir, "image"),
		Tag: "drvcheck:test", Arch: runtime.GOARCH, Version: "imagetest"}
	digest, err := Build(opt)
	if err != nil {
		t.Fatal(err)
	}

	img := readBack(t, opt.Out, opt.Tag, digest)
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if !slices.Equal(c.Entrypoint, []string{"/drvcheck"}) || c.User != "65532:65532" ||
		cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH || !slices.Equal(c.Cmd, DefaultCmd) {
		t.Fatalf("config = %+v, os %s/%s", c, cfg.OS, cfg.Architecture)
	}

	files := extract(t, img)
	entry := files[strings.TrimPrefix(c.Entrypoint[0], "/")]
	if entry == nil || entry.hdr.Mode&0o111 == 0 || entry.hdr.Uid != 0 {
		t.Fatalf("entrypoint %s missing or not executable: %+v", c.Entrypoint[0], entry)
	}
	if tmp := files["tmp"]; tmp == nil || tmp.hdr.Typeflag != tar.TypeDir || tmp.hdr.Mode&0o1777 != 0o1777 {
		t.Errorf("/tmp = %+v, want a world-writable sticky folder", tmp)
	}
	if certs := files["etc/ssl/certs/ca-certificates.crt"]; certs == nil || !bytes.Contains(certs.data, []byte("BEGIN CERTIFICATE")) {
		t.Errorf("CA bundle missing")
	}

	// Scratch has no dynamic loader: the binary must be static.
	run := filepath.Join(dir, "rootfs-drvcheck")
	if err := os.WriteFile(run, entry.data, 0o755); err != nil {
		t.Fatal(err)
	}
	if f, err := elf.Open(run); err != nil {
		t.Fatal(err)
	} else {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("entrypoint is dynamically linked; it cannot run from scratch")
			}
		}
		f.Close()
	}
	args := append(slices.Clone(c.Entrypoint[1:]), "version")
	out, err := exec.Command(run, args...).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "drvcheck imagetest\ncommit abc123\nopa ") {
		t.Fatalf("%s version: %v\n%s", c.Entrypoint[0], err, out)
	}

	// The same inputs give the same digest (fixed timestamps).
	again, err := Build(opt)
	if err != nil || again != digest {
		t.Errorf("rebuild digest %s, want %s (err %v)", again, digest, err)
	}
}

// readBack opens the layout, finds the image by its ref name annotation and
// checks that it is an OCI image with the digest Build reported.
func readBack(t *testing.T, dir, tag string, digest v1.Hash) v1.Image {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations[RefName] != tag || m.Manifests[0].Digest != digest {
		t.Fatalf("index = %+v", m.Manifests)
	}
	if m.Manifests[0].MediaType != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s", m.Manifests[0].MediaType)
	}
	img, err := p.Image(digest)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		if mt, _ := l.MediaType(); mt != types.OCILayer {
			t.Errorf("layer media type %s", mt)
		}
	}
	return img
}

type entry struct {
	hdr  *tar.Header
	data []byte
}

// extract flattens the image's layers as a container runtime would.
func extract(t *testing.T, img v1.Image) map[string]*entry {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string]*entry{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(h.Name, "/")] = &entry{hdr: h, data: data}
	}
}
