package load

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// kustomizationNames are the file names that make a folder a
// kustomization, as kustomize looks for them.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// originAnnotation is where kustomize notes the file a resource came from.
const originAnnotation = "config.kubernetes.io/origin"

// KustomizationIn returns the kustomization file of dir, or "".
func KustomizationIn(dir string) string {
	for _, n := range kustomizationNames {
		if info, err := os.Stat(filepath.Join(dir, n)); err == nil && info.Mode().IsRegular() {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

// buildKustomization builds the kustomization in dir as kustomize build
// does, in process: no plugin runs and no remote base is fetched (either
// is an error naming it). Each resource is read back from the file it came
// from, so that findings point at its line there; a line is the source's,
// and a field a patch added has the line of its object.
func buildKustomization(dir string) ([]*Object, error) {
	file := KustomizationIn(dir)
	if err := checkLocal(dir, map[string]bool{}); err != nil {
		return nil, err
	}
	opt := krusty.MakeDefaultOptions()
	opt.PluginConfig = types.DisabledPluginConfig()
	m, err := krusty.MakeKustomizer(opt).Run(originFS{filesys.MakeFsOnDisk()}, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: kustomize build: %s", file, oneLine(err))
	}
	sources := map[string][]*Object{}
	var out []*Object
	for _, r := range m.Resources() {
		o, err := builtObject(dir, file, r, sources)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// builtObject is one built resource, placed at the object it came from.
func builtObject(dir, file string, r *resource.Resource, sources map[string][]*Object) (*Object, error) {
	org, _ := r.GetOrigin()
	// Read back through drvcheck's own parser, so that values are typed as
	// for any file (int64, duplicate keys refused).
	data, err := r.AsYAML()
	if err != nil {
		return nil, fmt.Errorf("%s: kustomize build: %v", file, err)
	}
	objs, err := Parse(&Source{Name: file}, data)
	if err != nil || len(objs) != 1 {
		return nil, fmt.Errorf("%s: kustomize build: %s/%s: %v", file, r.GetKind(), r.GetName(), err)
	}
	o := objs[0]
	dropOrigin(o.Raw)
	o.Line, o.lines = 1, nil
	if org == nil || org.Path == "" || org.Repo != "" {
		return o, nil // generated (a ConfigMap generator): the kustomization is its source
	}
	path := filepath.Join(dir, org.Path)
	src, ok := sources[path]
	if !ok {
		data, err := os.ReadFile(path)
		if err == nil {
			src, _ = Parse(&Source{Name: path}, data)
		}
		sources[path] = src
	}
	if from := sourceObject(src, o.Kind, r.OrgId().Name); from != nil {
		o.Source, o.Line, o.Doc, o.Item = from.Source, from.Line, from.Doc, from.Item
		o.lines, o.root, o.wide = from.lines, from.root, from.wide
	}
	return o, nil
}

// sourceObject finds the built object's origin among the objects of its
// file: the same kind and original name, else the only one of its kind.
func sourceObject(src []*Object, kind, name string) *Object {
	var same []*Object
	for _, s := range src {
		if s.Kind == kind {
			if s.Name == name {
				return s
			}
			same = append(same, s)
		}
	}
	if len(same) == 1 {
		return same[0]
	}
	return nil
}

func dropOrigin(raw map[string]any) {
	meta, _ := raw["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	delete(ann, originAnnotation)
	if ann != nil && len(ann) == 0 {
		delete(meta, "annotations")
	}
}

// originFS asks every kustomization for origin annotations, so that each
// built resource names its file (kustomize's buildMetadata).
type originFS struct{ filesys.FileSystem }

func (f originFS) ReadFile(path string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(path)
	if err != nil || !slices.Contains(kustomizationNames, filepath.Base(path)) || bytes.Contains(data, []byte("buildMetadata")) {
		return data, err
	}
	return append(append(data, '\n'), "buildMetadata: [originAnnotations]\n"...), nil
}

// kustomization is what checkLocal reads of a kustomization file.
type kustomization struct {
	Resources  []string `json:"resources"`
	Bases      []string `json:"bases"`
	Components []string `json:"components"`
}

// checkLocal refuses a remote base, component or resource anywhere in the
// kustomization of dir and the local ones it uses: drvcheck never fetches.
func checkLocal(dir string, seen map[string]bool) error {
	file := KustomizationIn(dir)
	if file == "" || seen[dir] {
		return nil
	}
	seen[dir] = true
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	var k kustomization
	if err := yaml.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("%s: not a kustomization: %v", file, err)
	}
	for _, ref := range slices.Concat(k.Resources, k.Bases, k.Components) {
		local := filepath.Join(dir, ref)
		if _, err := os.Stat(local); err != nil {
			if remote(ref) {
				return fmt.Errorf("%s: %s is a remote base; drvcheck builds local kustomizations only (vendor it, or pipe kustomize build into drvcheck check -)", file, ref)
			}
			continue // kustomize names the missing file itself
		}
		if err := checkLocal(local, seen); err != nil {
			return err
		}
	}
	return nil
}

func remote(ref string) bool {
	return strings.Contains(ref, "://") || strings.HasPrefix(ref, "git@") || strings.Contains(ref, "?ref=") ||
		strings.HasPrefix(ref, "github.com/") || strings.HasPrefix(ref, "gitlab.com/") || strings.HasPrefix(ref, "bitbucket.org/")
}

// localDirs are the folders the kustomization of dir uses, itself
// included, by their cleaned absolute paths.
func localDirs(dir string) map[string]bool {
	out := map[string]bool{}
	var visit func(d string)
	visit = func(d string) {
		abs, err := filepath.Abs(d)
		if err != nil || out[abs] {
			return
		}
		out[abs] = true
		data, err := os.ReadFile(KustomizationIn(d))
		if err != nil {
			return
		}
		var k kustomization
		if yaml.Unmarshal(data, &k) != nil {
			return
		}
		for _, ref := range slices.Concat(k.Resources, k.Bases, k.Components) {
			local := filepath.Join(d, ref)
			if info, err := os.Stat(local); err == nil && info.IsDir() {
				visit(local)
			}
		}
	}
	visit(dir)
	return out
}
