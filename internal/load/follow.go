package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// A GitOps controller object that deploys a chart of the same repository:
// an Argo CD Application (spec.source or spec.sources[]) or a Flux
// HelmRelease whose chart is a path of a GitRepository.
type release struct {
	from      *Object
	dir       string // the chart's folder
	name, ns  string // release name and namespace
	values    map[string]any
	set       []string // parameters, as --set (Argo's helm.parameters)
	valueDirs []string // values files, relative to dir (Argo's valueFiles)
	err       error    // why the chart cannot be followed
}

// follow renders the charts that Argo CD Applications and Flux
// HelmReleases among objs deploy from this repository, with the values
// and release name and namespace they give, in place of the chart's
// rendering with its defaults; what they take from elsewhere is noted as
// not followed. A Flux Kustomization's path is walked as any folder.
func follow(ctx context.Context, objs []*Object, opt Options) ([]*Object, error) {
	var rels []release
	for _, o := range objs {
		found, notes := releasesOf(o, opt.FS)
		rels = append(rels, found...)
		for _, n := range notes {
			note(opt, fmt.Sprintf("%s: %s", o.Where(), n))
		}
	}
	if len(rels) == 0 {
		return objs, nil
	}
	for _, r := range rels {
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", r.from.Where(), r.err)
		}
	}
	rendered, err := renderReleases(ctx, rels, opt)
	if err != nil {
		return nil, err
	}
	replaced := map[string]bool{}
	var extra []*Object
	for i, r := range rels {
		abs, _ := filepath.Abs(r.dir)
		replaced[abs] = true
		extra = append(extra, rendered[i]...)
	}
	out := objs[:0:0]
	for _, o := range objs {
		if !under(o, replaced) {
			out = append(out, o)
		}
	}
	return append(out, extra...), nil
}

// renderReleases renders every release, as many at once as the pool has
// children, and returns their objects in the releases' order, or the
// first release's error in that order.
func renderReleases(ctx context.Context, rels []release, opt Options) ([][]*Object, error) {
	out := make([][]*Object, len(rels))
	err := parallel(ctx, len(rels), func(ctx context.Context, i int) (err error) {
		if out[i], err = renderRelease(ctx, rels[i], opt); err != nil {
			return fmt.Errorf("%s: %w", rels[i].from.Where(), err)
		}
		return nil
	})
	return out, err
}

// renderRelease renders the chart of r with the values, release name and
// namespace r gives.
func renderRelease(ctx context.Context, r release, opt Options) ([]*Object, error) {
	hv := opt.Helm
	hv.release, hv.namespace, hv.values, hv.set, hv.valueFiles = r.name, r.ns, r.values, r.set, r.valueDirs
	got, err := renderChart(ctx, r.dir, hv, opt)
	if err != nil {
		return nil, err
	}
	return each(got, opt)
}

// under says whether o was rendered from one of the chart folders dirs.
func under(o *Object, dirs map[string]bool) bool {
	if o.Source == nil {
		return false
	}
	abs, err := filepath.Abs(o.Source.Name)
	if err != nil {
		return false
	}
	for d := range dirs {
		if strings.HasPrefix(abs, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// installNote is what a run says of a gpu-operator chart from a chart
// repository.
const installNote = "chart gpu-operator from a chart repository: not rendered (drvcheck fetches nothing); its inline values are read as the GPU Operator's configuration"

// isGitOps tells the objects follow reads.
func isGitOps(o *Object) bool {
	group, _, _ := strings.Cut(o.APIVersion, "/")
	return group == "argoproj.io" && o.Kind == "Application" || group == "helm.toolkit.fluxcd.io" && o.Kind == "HelmRelease" ||
		group == "helm.cattle.io" && o.Kind == "HelmChart"
}

// raw is o as read, even once decoded.
func raw(o *Object) map[string]any {
	if o.gitops != nil {
		return o.gitops
	}
	return o.Raw
}

// releasesOf reads the charts o deploys from this repository, and notes
// what it deploys from elsewhere.
func releasesOf(o *Object, fsys *repofs.FS) ([]release, []string) {
	switch {
	case !isGitOps(o):
		return nil, nil
	case o.Kind == "Application":
		return argoReleases(o, fsys)
	case o.Kind == "HelmRelease":
		return fluxRelease(o, fsys)
	}
	return nil, nil // a HelmChart installs from a chart repository: installs reads it
}

// installs hands the gpu-operator installs among objs to opt.Install.
func installs(objs []*Object, opt Options) {
	for _, o := range objs {
		if !isGitOps(o) {
			continue
		}
		found, notes := operatorInstalls(o)
		for _, n := range notes {
			note(opt, fmt.Sprintf("%s: %s", o.Where(), n))
		}
		for _, i := range found {
			if opt.Install != nil {
				opt.Install(i)
			}
		}
	}
}

func argoReleases(o *Object, fsys *repofs.FS) ([]release, []string) {
	spec, _ := raw(o)["spec"].(map[string]any)
	srcs, _ := spec["sources"].([]any)
	if s, ok := spec["source"]; ok {
		srcs = append([]any{s}, srcs...)
	}
	dest, _ := spec["destination"].(map[string]any)
	ns, _ := dest["namespace"].(string)
	var rels []release
	var notes []string
	for _, s := range srcs {
		src, _ := s.(map[string]any)
		path, _ := src["path"].(string)
		repo, _ := src["repoURL"].(string)
		if chart, _ := src["chart"].(string); path == "" && operatorChart(chart) {
			notes = append(notes, installNote)
			continue
		}
		if path == "" {
			notes = append(notes, fmt.Sprintf("source %s is not a path of this repository; not followed", repo))
			continue
		}
		dir, ok, err := repoPath(o, path, fsys)
		if err != nil {
			rels = append(rels, release{from: o, err: fmt.Errorf("source path %s: %w", path, err)})
			continue
		}
		if !ok || !chartIn(fsys, dir) {
			if !ok {
				notes = append(notes, fmt.Sprintf("source %s path %s is not in this repository; not followed", repo, path))
			}
			continue // a plain or kustomize folder is walked as it is
		}
		helm, _ := src["helm"].(map[string]any)
		r := release{from: o, dir: dir, name: o.Name, ns: ns, values: argoValues(helm), set: argoParameters(helm)}
		if name, _ := helm["releaseName"].(string); name != "" {
			r.name = name
		}
		for _, f := range stringList(helm["valueFiles"]) {
			if !strings.Contains(f, "://") { // a URL is refused as it is written
				f = filepath.Join(dir, f)
			}
			r.valueDirs = append(r.valueDirs, f)
		}
		rels = append(rels, r)
	}
	return rels, notes
}

// argoValues merges an Application's helm values: the values string, then
// valuesObject over it.
func argoValues(helm map[string]any) map[string]any {
	vals := map[string]any{}
	if s, _ := helm["values"].(string); s != "" {
		_ = yaml.Unmarshal([]byte(s), &vals)
	}
	if obj, ok := helm["valuesObject"].(map[string]any); ok {
		for k, v := range obj {
			vals[k] = v
		}
	}
	return vals
}

// argoParameters are an Application's helm parameters, as --set takes
// them.
func argoParameters(helm map[string]any) []string {
	var out []string
	params, _ := helm["parameters"].([]any)
	for _, p := range params {
		pm, _ := p.(map[string]any)
		if n, _ := pm["name"].(string); n != "" {
			out = append(out, n+"="+fmt.Sprint(pm["value"]))
		}
	}
	return out
}

func fluxRelease(o *Object, fsys *repofs.FS) ([]release, []string) {
	spec, _ := raw(o)["spec"].(map[string]any)
	chartSpec, _ := At(spec, "chart", "spec").(map[string]any)
	chart, _ := chartSpec["chart"].(string)
	kind, _ := At(chartSpec, "sourceRef", "kind").(string)
	if kind != "GitRepository" && operatorChart(chart) {
		return nil, []string{installNote}
	}
	if kind != "GitRepository" || chart == "" {
		return nil, []string{fmt.Sprintf("chart %s from a %s is not a path of this repository; not followed", chart, kind)}
	}
	dir, ok, err := repoPath(o, chart, fsys)
	if err != nil {
		return []release{{from: o, err: fmt.Errorf("chart %s: %w", chart, err)}}, nil
	}
	if !ok || !chartIn(fsys, dir) {
		return nil, []string{fmt.Sprintf("chart path %s is not a chart of this repository; not followed", chart)}
	}
	r := release{from: o, dir: dir, name: o.Name, ns: o.Namespace}
	r.values, _ = spec["values"].(map[string]any)
	if name, _ := spec["releaseName"].(string); name != "" {
		r.name = name
	}
	if ns, _ := spec["targetNamespace"].(string); ns != "" {
		r.ns = ns
	}
	return []release{r}, nil
}

// repoPath is path inside the repository that holds o's file, if it is
// there; a path that is there as written but leads out of it (a symbolic
// link) is an error, since nothing would be checked in its place.
func repoPath(o *Object, path string, fsys *repofs.FS) (string, bool, error) {
	if o.Source == nil || o.Source.Name == "-" {
		return "", false, nil
	}
	root := repofs.RepoRoot(filepath.Dir(o.Source.Name))
	dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, "./")))
	if !repofs.Within(dir, root) {
		return "", false, nil
	}
	info, err := fsys.Stat(dir)
	switch {
	case errors.Is(err, repofs.ErrOutside):
		return "", false, err
	case err != nil || !info.IsDir():
		return "", false, nil
	}
	// Named as the object's own file is: relative when it is, so that
	// findings on what the chart renders read like the rest.
	if !filepath.IsAbs(o.Source.Name) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, dir); err == nil {
				return rel, true, nil
			}
		}
	}
	return dir, true, nil
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// At walks m along keys (strings for maps, ints for lists); nil when the
// path leads nowhere.
func At(m any, keys ...any) any {
	for _, k := range keys {
		switch x := m.(type) {
		case map[string]any:
			s, _ := k.(string)
			m = x[s]
		case []any:
			i, ok := k.(int)
			if !ok || i >= len(x) {
				return nil
			}
			m = x[i]
		default:
			return nil
		}
	}
	return m
}
