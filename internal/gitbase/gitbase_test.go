package gitbase

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tarOf(t *testing.T, entries ...tar.Header) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, h := range entries {
		body := []byte("x")
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := w.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := w.Write(body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// No entry of a hostile tree writes outside the folder: not by name, not
// through a link written before it.
func TestUntarStaysInside(t *testing.T) {
	outside := t.TempDir()
	for name, entries := range map[string][]tar.Header{
		"dot-dot":  {{Name: "../escape", Typeflag: tar.TypeReg, Mode: 0o644}},
		"absolute": {{Name: filepath.Join(outside, "abs"), Typeflag: tar.TypeReg, Mode: 0o644}},
		"through a link": {
			{Name: "l", Typeflag: tar.TypeSymlink, Linkname: outside},
			{Name: "l/f", Typeflag: tar.TypeReg, Mode: 0o644},
		},
	} {
		dest := t.TempDir()
		err := untar(tarOf(t, entries...), dest, 1<<20)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if got, _ := os.ReadDir(outside); len(got) != 0 {
			t.Fatalf("%s wrote outside: %v", name, got)
		}
	}
}

func TestUntarBoundsTheSize(t *testing.T) {
	err := untar(tarOf(t, tar.Header{Name: "a", Typeflag: tar.TypeReg}, tar.Header{Name: "b", Typeflag: tar.TypeReg}), t.TempDir(), 1)
	if err == nil || !strings.Contains(err.Error(), "larger than --max-input-size") {
		t.Fatalf("%v", err)
	}
}

func TestMergeBaseRefusesAnOption(t *testing.T) {
	if _, err := MergeBase(t.Context(), t.TempDir(), "--output=/tmp/x"); err == nil {
		t.Fatal("an option taken for a revision")
	}
}
