package load

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/repofs"
	"github.com/drvcheck/drvcheck/internal/sandbox"
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

// helmJob is what the sandbox's helm job renders: a chart, and the values
// and release of helm template, as paths and text for the child to read
// and parse as Helm would.
type helmJob struct {
	Dir string `json:"dir"`

	Release, Namespace string
	// What a GitOps object gives, under the user's: values files of the
	// repository, inline values, and parameters applied as --set.
	ObjectFiles  []string       `json:"objectFiles"`
	ObjectValues map[string]any `json:"objectValues"`
	ObjectSet    []string       `json:"objectSet"`
	// The user's --helm-values (for this chart) and --helm-set.
	UserFiles []string `json:"userFiles"`
	UserSet   []string `json:"userSet"`
}

// helmAnswer is a chart's rendering: its name, each template's output,
// and the bytes the child read.
type helmAnswer struct {
	Name     string            `json:"name"`
	Rendered map[string]string `json:"rendered"`
	Read     int64             `json:"read"`
}

func init() { sandbox.Register("helm", jobFunc(renderInChild)) }

// renderChart renders the chart in dir as helm template does, client-only,
// in the sandbox (internal/sandbox): no cluster is asked (lookup finds
// nothing), no name is resolved (getHostByName is empty), a dependency
// that is not in its charts/ folder is an error naming it, never a
// download, and the chart's files, values included, are read only inside
// the repository. Each rendered document is read as the template file it
// came from; its lines are the rendered document's, which match the
// template's where the template writes the YAML itself.
func renderChart(ctx context.Context, dir string, hv HelmValues, opt Options) ([]*Object, error) {
	where := filepath.Join(dir, "Chart.yaml")
	job := helmJob{Dir: dir, Release: "drvcheck", Namespace: DefaultNamespace,
		ObjectFiles: hv.valueFiles, ObjectValues: hv.values, ObjectSet: hv.set,
		UserSet: hv.Set}
	job.UserFiles = hv.filesFor(dir, opt.FS)
	if hv.release != "" {
		job.Release = hv.release
	}
	if hv.namespace != "" {
		job.Namespace = hv.namespace
	}
	var answer helmAnswer
	if err := runJob(ctx, where, "helm", &job, &answer, opt); err != nil {
		return nil, err
	}
	objs, err := renderedObjects(dir, answer.Name, answer.Rendered)
	setNamespace(objs, job.Namespace)
	return objs, err
}

// size is what the render read and made.
func (a *helmAnswer) size() int64 {
	n := a.Read
	for _, text := range a.Rendered {
		n += int64(len(text))
	}
	return n
}

// renderInChild is the helm job, in the sandbox.
func renderInChild(job *helmJob, fsys *repofs.FS) (*helmAnswer, error) {
	ch, err := loadChart(fsys, job.Dir)
	if err != nil {
		return nil, fmt.Errorf("helm chart: %s", oneline.Error(err))
	}
	if err := localDependencies(ch); err != nil {
		return nil, err
	}
	vals, err := helmValues(job, ch.Name(), fsys)
	if err != nil {
		return nil, err
	}
	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		return nil, fmt.Errorf("helm chart: %s", oneline.Error(err))
	}
	opts := common.ReleaseOptions{Name: job.Release, Namespace: job.Namespace, IsInstall: true}
	rv, err := commonutil.ToRenderValues(ch, vals, opts, common.DefaultCapabilities)
	if err != nil {
		return nil, fmt.Errorf("helm template: %s", oneline.Error(err))
	}
	out, err := engine.Render(ch, rv)
	if err != nil {
		return nil, fmt.Errorf("helm template: %s", oneline.Error(err))
	}
	return &helmAnswer{Name: ch.Name(), Rendered: out, Read: fsys.Used()}, nil
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
func localDependencies(ch *chart.Chart) error {
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, d := range ch.Metadata.Dependencies {
		if !have[d.Name] {
			return fmt.Errorf("dependency %s (%s) is not in charts/; drvcheck renders local charts only (helm dependency build first)", d.Name, d.Repository)
		}
	}
	return nil
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

// helmValues are a chart's values, in helm template's order: the GitOps
// object's values files, its inline values and parameters, then the
// user's --helm-values and --helm-set. The object's files are the
// repository's, read inside it; the user's are read as named.
func helmValues(job *helmJob, chart string, fsys *repofs.FS) (map[string]any, error) {
	vals := map[string]any{}
	for _, f := range job.ObjectFiles {
		m, err := valuesFile(f, "valueFiles", fsys.ReadFile)
		if err != nil {
			return nil, err
		}
		vals = commonutil.MergeTables(m, vals)
	}
	vals = commonutil.MergeTables(maps.Clone(job.ObjectValues), vals)
	if vals == nil {
		vals = map[string]any{}
	}
	for _, s := range job.ObjectSet {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("helm parameter %s: %s", s, oneline.Error(err))
		}
	}
	for _, f := range job.UserFiles {
		m, err := valuesFile(f, "--helm-values", fsys.ReadGiven)
		if err != nil {
			return nil, err
		}
		vals = commonutil.MergeTables(m, vals)
	}
	for _, s := range job.UserSet {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("--helm-set %s: %s", s, oneline.Error(err))
		}
	}
	return vals, nil
}

// valuesFile reads one values file with read; what names where it was
// given.
func valuesFile(f, what string, read func(string) ([]byte, error)) (map[string]any, error) {
	if strings.Contains(f, "://") {
		return nil, fmt.Errorf("%s %s: a values file at a URL; drvcheck reads the repository's files only", what, f)
	}
	data, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s %w", what, err) // err names f
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s %s: not YAML: %s", what, f, oneline.Error(err))
	}
	return m, nil
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
