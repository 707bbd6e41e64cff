package load

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/internal/sandbox"
)

// kustomizationNames are the file names that make a folder a
// kustomization, as kustomize looks for them.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// originAnnotation is where kustomize notes the file a resource came from.
const originAnnotation = "config.kubernetes.io/origin"

// KustomizationIn returns the kustomization file of dir, or "".
func KustomizationIn(fsys *repofs.FS, dir string) string {
	for _, n := range kustomizationNames {
		if fsys.IsFile(filepath.Join(dir, n)) {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

// kustomizeJob is what the sandbox's kustomize job builds.
type kustomizeJob struct {
	Dir string `json:"dir"`
}

// kustomizeAnswer is a build: each resource as YAML with the file it came
// from, and the bytes the child read.
type kustomizeAnswer struct {
	Resources []builtResource `json:"resources"`
	Read      int64           `json:"read"`
}

type builtResource struct {
	YAML    string `json:"yaml"`
	Kind    string `json:"kind"`
	OrgName string `json:"orgName"` // the name in its file, before prefixes
	Origin  string `json:"origin"`  // its file, relative to the kustomization; "" when generated or remote
}

func init() { sandbox.Register("kustomize", jobFunc(buildInChild)) }

// size is what the build read and made.
func (a *kustomizeAnswer) size() int64 {
	n := a.Read
	for _, r := range a.Resources {
		n += int64(len(r.YAML))
	}
	return n
}

// buildKustomization builds the kustomization in dir as kustomize build
// does, in the sandbox (internal/sandbox): no plugin runs, no remote base
// is fetched (either is an error naming it), no URL is read, and nothing
// out of the repository. Each resource is read back from the file it came
// from, so that findings point at its line there; a line is the source's,
// and a field a patch added has the line of its object.
func buildKustomization(ctx context.Context, dir string, opt Options) ([]*Object, error) {
	file := KustomizationIn(opt.FS, dir)
	if err := checkLocal(opt.FS, dir, map[string]bool{}); err != nil {
		return nil, err
	}
	var answer kustomizeAnswer
	if err := runJob(ctx, file, "kustomize", &kustomizeJob{Dir: dir}, &answer, opt); err != nil {
		return nil, err
	}
	sources := map[string][]*Object{}
	var out []*Object
	for _, r := range answer.Resources {
		o, err := builtObject(dir, file, r, sources, opt.FS)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// buildInChild is the kustomize job, in the sandbox.
func buildInChild(job *kustomizeJob, fsys *repofs.FS) (*kustomizeAnswer, error) {
	// kyaml keeps the OpenAPI schema in a global, and an openapi field sets
	// it for the builds that follow in the same child without resetting
	// it after: each build starts from the default schema, as in a child
	// of its own.
	openapi.ResetOpenAPI()
	opt := krusty.MakeDefaultOptions()
	opt.PluginConfig = types.DisabledPluginConfig()
	m, err := krusty.MakeKustomizer(opt).Run(kustFS{fsys}, job.Dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %s", oneline.Error(err))
	}
	answer := &kustomizeAnswer{}
	for _, r := range m.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("kustomize build: %v", err)
		}
		b := builtResource{YAML: string(data), Kind: r.GetKind(), OrgName: r.OrgId().Name}
		if org, _ := r.GetOrigin(); org != nil && org.Repo == "" {
			b.Origin = org.Path
		}
		answer.Resources = append(answer.Resources, b)
	}
	answer.Read = fsys.Used()
	return answer, nil
}

// builtObject is one built resource, placed at the object it came from.
func builtObject(dir, file string, r builtResource, sources map[string][]*Object, fsys *repofs.FS) (*Object, error) {
	// Read back through drvcheck's own parser, so that values are typed as
	// for any file (int64, duplicate keys refused).
	objs, err := Parse(&Source{Name: file}, []byte(r.YAML))
	if err != nil || len(objs) != 1 {
		return nil, fmt.Errorf("%s: kustomize build: %s/%s: %v", file, r.Kind, r.OrgName, err)
	}
	o := objs[0]
	dropOrigin(o.Raw)
	o.Line, o.lines = 1, nil
	if r.Origin == "" {
		return o, nil // generated (a ConfigMap generator): the kustomization is its source
	}
	path := filepath.Join(dir, r.Origin)
	src, ok := sources[path]
	if !ok {
		data, err := fsys.ReadFile(path)
		if err == nil {
			src, _ = Parse(&Source{Name: path}, data)
		}
		sources[path] = src
	}
	if from := sourceObject(src, o.Kind, r.OrgName); from != nil {
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

// localDirs are the folders the kustomization of dir uses, itself
// included, by their cleaned absolute paths.
func localDirs(fsys *repofs.FS, dir string) map[string]bool {
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
