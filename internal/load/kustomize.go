package load

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/drvcheck/drvcheck/internal/load/renderer"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// originAnnotation is where kustomize notes the file a resource came from.
const originAnnotation = "config.kubernetes.io/origin"

// buildKustomization builds the kustomization in dir as kustomize build
// does, in the sandbox (renderer.Kustomize). Each resource is read back
// from the file it came from, so that findings point at its line there; a
// line is the source's, and a field a patch added has the line of its
// object.
func buildKustomization(ctx context.Context, dir string, opt Options) ([]*Object, error) {
	resources, err := renderer.Kustomize(ctx, opt.renders(), dir)
	if err != nil {
		return nil, err
	}
	file := renderer.KustomizationIn(opt.FS, dir)
	sources := map[string][]*Object{}
	var out []*Object
	for _, r := range resources {
		o, err := builtObject(dir, file, r, sources, opt.FS)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// builtObject is one built resource, placed at the object it came from.
func builtObject(dir, file string, r renderer.Resource, sources map[string][]*Object, fsys *repofs.FS) (*Object, error) {
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
