package load

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/load/renderer"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// HelmValues are the values every chart is rendered with, over its own
// values.yaml: files (--helm-values) then key=value pairs (--helm-set), as
// helm template applies them. A file written CHART=FILE is for one chart
// only: the one named CHART in its Chart.yaml, or in the folder CHART.
type HelmValues struct {
	Files []string
	Set   []string

	used *sync.Map // the CHART=FILE entries some chart took

	// What a GitOps object that deploys the chart gives (follow.go): the
	// release, and values under the user's.
	release, namespace string
	values             map[string]any
	set                []string // parameters, as --helm-set
	valueFiles         []string
}

// chartIn says whether dir holds a Helm chart.
func chartIn(fsys *repofs.FS, dir string) bool {
	return fsys.IsFile(filepath.Join(dir, "Chart.yaml"))
}

// renderChart renders the chart in dir as helm template does, in the
// sandbox (renderer.Chart), with the values hv gives. Each rendered
// document is read as the template file it came from; its lines are the
// rendered document's, which match the template's where the template
// writes the YAML itself.
func renderChart(ctx context.Context, dir string, hv HelmValues, opt Options) ([]*Object, error) {
	job := renderer.Chart{Dir: dir, Release: "drvcheck", Namespace: DefaultNamespace,
		ObjectFiles: hv.valueFiles, ObjectValues: hv.values, ObjectSet: hv.set,
		UserSet: hv.Set}
	job.UserFiles = hv.filesFor(dir, opt.FS)
	if hv.release != "" {
		job.Release = hv.release
	}
	if hv.namespace != "" {
		job.Namespace = hv.namespace
	}
	name, rendered, err := job.Render(ctx, opt.renders())
	if err != nil {
		return nil, err
	}
	objs, err := renderedObjects(dir, name, rendered)
	setNamespace(objs, job.Namespace)
	return objs, err
}

// renderedObjects parses each rendered template, named by its file.
func renderedObjects(dir, name string, out map[string]string) ([]*Object, error) {
	var objs []*Object
	for _, key := range slices.Sorted(maps.Keys(out)) {
		base := filepath.Base(key)
		if strings.HasPrefix(base, "_") || strings.EqualFold(base, "NOTES.txt") || strings.TrimSpace(out[key]) == "" {
			continue
		}
		file := filepath.Join(dir, strings.TrimPrefix(key, name+"/"))
		got, err := Parse(&Source{Name: file}, []byte(out[key]))
		if err != nil {
			return nil, fmt.Errorf("rendered by helm template: %w", err)
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// filesFor keeps the values files for every chart and those written
// CHART=FILE for the chart in dir, named CHART in its Chart.yaml or by its
// folder.
func (hv HelmValues) filesFor(dir string, fsys *repofs.FS) []string {
	var out []string
	name := ""
	for _, f := range hv.Files {
		chart, file, scoped := strings.Cut(f, "=")
		if !scoped {
			out = append(out, f)
			continue
		}
		if name == "" {
			name = chartName(fsys, dir)
		}
		if chart == name || filepath.Clean(chart) == filepath.Clean(dir) {
			out = append(out, file)
			if hv.used != nil {
				hv.used.Store(f, true)
			}
		}
	}
	return out
}

// chartName is the name in dir's Chart.yaml, or "" when it has none.
func chartName(fsys *repofs.FS, dir string) string {
	data, err := fsys.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return ""
	}
	var meta struct {
		Name string `json:"name"`
	}
	if yaml.Unmarshal(data, &meta) != nil {
		return ""
	}
	return meta.Name
}

// unusedScoped is the first CHART=FILE no rendered chart took: a values
// file that silently applied to nothing would pass a chart never checked
// with it.
func (hv HelmValues) unusedScoped() error {
	for _, f := range hv.Files {
		chart, _, scoped := strings.Cut(f, "=")
		if _, used := hv.used.Load(f); scoped && !used {
			return fmt.Errorf("--helm-values %s: no chart named %s (in Chart.yaml, or as its folder) was rendered", f, chart)
		}
	}
	return nil
}

// ClusterScoped are the kinds without a namespace that drvcheck meets:
// what it reads, and what a chart may render.
var ClusterScoped = map[string]bool{"Namespace": true, "Node": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"CustomResourceDefinition": true, "PriorityClass": true, "StorageClass": true, "PersistentVolume": true,
	"RuntimeClass": true, "ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"ClusterPolicy": true, "NVIDIADriver": true}

// setNamespace puts the namespaced objects a chart renders without a
// namespace in the release's, as helm install -n does.
func setNamespace(objs []*Object, ns string) {
	for _, o := range objs {
		if o.Namespace == "" && !ClusterScoped[o.Kind] {
			o.Namespace = ns
		}
	}
}
