package load

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartloader "helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/strvals"
	"sigs.k8s.io/yaml"
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
	valueFiles         []string
}

// chartIn says whether dir holds a Helm chart.
func chartIn(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && info.Mode().IsRegular()
}

// renderChart renders the chart in dir as helm template does, client-only:
// no cluster is asked (lookup finds nothing), and a dependency that is not
// in its charts/ folder is an error naming it, never a download. Each
// rendered document is read as the template file it came from; its lines
// are the rendered document's, which match the template's where the
// template writes the YAML itself.
func renderChart(dir string, hv HelmValues) ([]*Object, error) {
	where := filepath.Join(dir, "Chart.yaml")
	ch, err := chartloader.LoadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: helm chart: %s", where, oneLine(err))
	}
	if err := localDependencies(ch, where); err != nil {
		return nil, err
	}
	hv.Files = hv.filesFor(dir, ch.Name())
	vals, err := helmValues(hv)
	if err != nil {
		return nil, err
	}
	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		return nil, fmt.Errorf("%s: helm chart: %s", where, oneLine(err))
	}
	opts := common.ReleaseOptions{Name: "drvcheck", Namespace: DefaultNamespace, IsInstall: true}
	if hv.release != "" {
		opts.Name = hv.release
	}
	if hv.namespace != "" {
		opts.Namespace = hv.namespace
	}
	rv, err := commonutil.ToRenderValues(ch, vals, opts, common.DefaultCapabilities)
	if err == nil {
		var out map[string]string
		if out, err = engine.Render(ch, rv); err == nil {
			objs, err := renderedObjects(dir, ch.Name(), out)
			setNamespace(objs, opts.Namespace)
			return objs, err
		}
	}
	return nil, fmt.Errorf("%s: helm template: %s", where, oneLine(err))
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

// localDependencies refuses a dependency Chart.yaml names that is not in
// the chart's charts/ folder: drvcheck never downloads one.
func localDependencies(ch *chart.Chart, where string) error {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, d := range ch.Metadata.Dependencies {
		if !have[d.Name] {
			return fmt.Errorf("%s: dependency %s (%s) is not in charts/; drvcheck renders local charts only (helm dependency build first)", where, d.Name, d.Repository)
		}
	}
	return nil
}

// filesFor keeps the values files for every chart and those written
// CHART=FILE for the chart called name in dir.
func (hv HelmValues) filesFor(dir, name string) []string {
	var out []string
	for _, f := range hv.Files {
		chart, file, scoped := strings.Cut(f, "=")
		if !scoped {
			out = append(out, f)
			continue
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

// helmValues reads --helm-values and --helm-set.
func helmValues(hv HelmValues) (map[string]any, error) {
	vals := map[string]any{}
	for _, f := range slices.Concat(hv.valueFiles, []string{""}, hv.Files) {
		if f == "" { // between the object's files and the user's: its inline values
			vals = commonutil.MergeTables(maps.Clone(hv.values), vals)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--helm-values %s: %v", f, err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("--helm-values %s: not YAML: %s", f, oneLine(err))
		}
		vals = commonutil.MergeTables(m, vals)
	}
	for _, s := range hv.Set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("--helm-set %s: %s", s, oneLine(err))
		}
	}
	return vals, nil
}

// oneLine keeps a library's multi-line error on one line, as every error
// of this package is.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

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
