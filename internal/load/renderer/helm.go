package renderer

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

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

// Chart is what the sandbox's helm job renders: a chart, and the values
// and release of helm template, as paths and text for the child to read
// and parse as Helm would.
type Chart struct {
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

// Render renders c as helm template does, client-only, in the sandbox
// (internal/sandbox): no cluster is asked (lookup finds nothing), no name
// is resolved (getHostByName is empty), a dependency that is not in its
// charts/ folder is an error naming it, never a download, and the chart's
// files, values included, are read only inside the repository. It returns
// the chart's name and each template's output, by its name in the chart.
func (c *Chart) Render(ctx context.Context, r Run) (string, map[string]string, error) {
	var answer helmAnswer
	if err := runJob(ctx, filepath.Join(c.Dir, "Chart.yaml"), "helm", c, &answer, r); err != nil {
		return "", nil, err
	}
	return answer.Name, answer.Rendered, nil
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
func renderInChild(job *Chart, fsys *repofs.FS) (*helmAnswer, error) {
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

// helmValues are a chart's values, in helm template's order: the GitOps
// object's values files, its inline values and parameters, then the
// user's --helm-values and --helm-set. The object's files are the
// repository's, read inside it; the user's are read as named.
func helmValues(job *Chart, chart string, fsys *repofs.FS) (map[string]any, error) {
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
