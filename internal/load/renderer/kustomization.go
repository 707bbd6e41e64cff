package renderer

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// kustomizationNames are the file names that make a folder a
// kustomization, as kustomize looks for them.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// KustomizationIn returns the kustomization file of dir, or "".
func KustomizationIn(fsys *repofs.FS, dir string) string {
	for _, n := range kustomizationNames {
		if fsys.IsFile(filepath.Join(dir, n)) {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

// IsKustomization says whether a file's base name is one kustomize reads
// as its folder's kustomization.
func IsKustomization(base string) bool { return slices.Contains(kustomizationNames, base) }

// kustomization is what checkLocal reads of a kustomization file.
type kustomization struct {
	Resources  []string `json:"resources"`
	Bases      []string `json:"bases"`
	Components []string `json:"components"`
}

// readKustomization reads the kustomization of dir, or nil without one.
func readKustomization(fsys *repofs.FS, dir string) (*kustomization, string, error) {
	file := KustomizationIn(fsys, dir)
	if file == "" {
		return nil, "", nil
	}
	data, err := fsys.ReadFile(file)
	if err != nil {
		return nil, file, err
	}
	var k kustomization
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, file, fmt.Errorf("%s: not a kustomization: %v", file, err)
	}
	return &k, file, nil
}

// checkLocal refuses a remote base, component or resource anywhere in the
// kustomization of dir and the local ones it uses, and a local one out of
// the repository: drvcheck never fetches, and reads only what the
// repository holds. The sandbox and the opener refuse both anyway; this
// says which entry of which file did it.
func checkLocal(fsys *repofs.FS, dir string, seen map[string]bool) error {
	k, file, err := readKustomization(fsys, dir)
	if k == nil || err != nil || seen[dir] {
		return err
	}
	seen[dir] = true
	for _, ref := range slices.Concat(k.Resources, k.Bases, k.Components) {
		if remote(ref) {
			return fmt.Errorf("%s: %s is a remote base; drvcheck builds local kustomizations only (vendor it, or pipe kustomize build into drvcheck check -)", file, ref)
		}
		local := ref
		if !filepath.IsAbs(ref) {
			local = filepath.Join(dir, ref)
		}
		_, err := fsys.Stat(local)
		switch {
		case errors.Is(err, repofs.ErrOutside):
			return fmt.Errorf("%s: %s is outside the repository; drvcheck builds what the repository holds only", file, ref)
		case errors.Is(err, fs.ErrNotExist) || err != nil:
			continue // kustomize names the missing file itself
		}
		if err := checkLocal(fsys, local, seen); err != nil {
			return err
		}
	}
	return nil
}

func remote(ref string) bool {
	return strings.Contains(ref, "://") || strings.HasPrefix(ref, "git@") || strings.Contains(ref, "?ref=") ||
		strings.HasPrefix(ref, "github.com/") || strings.HasPrefix(ref, "gitlab.com/") || strings.HasPrefix(ref, "bitbucket.org/")
}

// LocalDirs are the folders the kustomization of dir uses, itself
// included, by their cleaned absolute paths.
func LocalDirs(fsys *repofs.FS, dir string) map[string]bool {
	out := map[string]bool{}
	var visit func(d string)
	visit = func(d string) {
		abs, err := filepath.Abs(d)
		if err != nil || out[abs] {
			return
		}
		out[abs] = true
		k, _, err := readKustomization(fsys, d)
		if k == nil || err != nil {
			return
		}
		for _, ref := range slices.Concat(k.Resources, k.Bases, k.Components) {
			if local := filepath.Join(d, ref); fsys.IsDir(local) {
				visit(local)
			}
		}
	}
	visit(dir)
	return out
}
