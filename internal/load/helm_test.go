package load

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// The chart renders with its values, then --helm-values and --helm-set
// over them; each object is read as its template file, partials and
// NOTES.txt left out.
func TestRenderChart(t *testing.T) {
	chart := filepath.Join(gitops, "charts", "gpu-inference")
	objs, err := renderChart(context.Background(), chart, HelmValues{}, optsFor(t, chart))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Kind+"/"+o.Name+" "+filepath.Base(o.Source.Name))
	}
	if strings.Join(got, ", ") != "Deployment/drvcheck-inference deployment.yaml, PodDisruptionBudget/drvcheck-inference pdb.yaml" {
		t.Fatalf("objects %v", got)
	}
	if line := objs[1].FieldLine([]any{"spec", "minAvailable"}); line != 6 {
		t.Errorf("minAvailable at line %d, want 6 (the template's)", line)
	}
	values := filepath.Join(t.TempDir(), "v.yaml")
	if err := os.WriteFile(values, []byte("replicaCount: 5\npdb: {minAvailable: 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err = renderChart(context.Background(), chart, HelmValues{Files: []string{values}, Set: []string{"replicaCount=7"}}, optsFor(t, chart))
	if err != nil {
		t.Fatal(err)
	}
	spec := objs[0].Raw["spec"].(map[string]any)
	pdb := objs[1].Raw["spec"].(map[string]any)
	if spec["replicas"] != int64(7) || pdb["minAvailable"] != int64(3) {
		t.Errorf("replicas %v, minAvailable %v; want 7 (--helm-set over the file) and 3", spec["replicas"], pdb["minAvailable"])
	}
}

func TestRenderChartErrors(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel, content string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Dir(p)
	}
	remote := mk("remote/Chart.yaml", "apiVersion: v2\nname: remote\nversion: 0.1.0\ndependencies:\n- name: redis\n  version: 18.0.0\n  repository: https://charts.bitnami.com/bitnami\n")
	required := mk("required/Chart.yaml", "apiVersion: v2\nname: required\nversion: 0.1.0\n")
	mk("required/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"set .Values.name\" .Values.name }}\n")
	badValues := mk("bad/values.yaml", "a: [\n")
	for name, c := range map[string]struct {
		dir  string
		hv   HelmValues
		want string
	}{
		"remote dependency": {remote, HelmValues{}, "remote/Chart.yaml: dependency redis (https://charts.bitnami.com/bitnami) is not in charts/"},
		"required value":    {required, HelmValues{}, "required/Chart.yaml: helm template: "},
		"values not YAML":   {required, HelmValues{Files: []string{filepath.Join(badValues, "values.yaml")}}, "values.yaml: not YAML"},
		"bad --helm-set":    {required, HelmValues{Set: []string{"noequals"}}, "--helm-set noequals: "},
	} {
		_, err := renderChart(context.Background(), c.dir, c.hv, optsFor(t, c.dir))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", name, err, c.want)
		}
	}
}

// CHART=FILE values reach that chart only, named by Chart.yaml or by its
// folder; one that names no rendered chart is an error, not a silent pass.
func TestScopedHelmValues(t *testing.T) {
	chart := filepath.Join(gitops, "charts", "gpu-inference")
	values := filepath.Join(t.TempDir(), "v.yaml")
	if err := os.WriteFile(values, []byte("replicaCount: 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	replicas := func(files ...string) (any, error) {
		objs, err := Load(context.Background(), []string{chart}, Options{Helm: HelmValues{Files: files}})
		if err != nil {
			return nil, err
		}
		return objs[0].Raw["spec"].(map[string]any)["replicas"], nil
	}
	for _, scope := range []string{"gpu-inference", chart, chart + "/"} {
		if got, err := replicas(scope + "=" + values); err != nil || got != int64(9) {
			t.Errorf("%s=FILE: replicas %v, %v; want 9", scope, got, err)
		}
	}
	_, err := replicas("other-chart=" + values)
	if err == nil || !strings.Contains(err.Error(), "--helm-values other-chart="+values+": no chart named other-chart") {
		t.Errorf("a scope no chart has: %v", err)
	}
	if got, err := replicas(values); err != nil || got != int64(9) {
		t.Errorf("unscoped: replicas %v, %v; want 9", got, err)
	}
}

// What a chart's rendering reads and makes counts against the run's
// --max-input-size, as the files it reads would.
func TestRenderingCountsAgainstTheInputs(t *testing.T) {
	chart := filepath.Join(gitops, "charts", "gpu-inference")
	render := func(total int64) (*repofs.FS, error) {
		fsys, err := repofs.New(repofs.RootsOf(chart), repofs.Limits{Total: total})
		if err != nil {
			t.Fatal(err)
		}
		_, err = renderChart(context.Background(), chart, HelmValues{}, Options{FS: fsys})
		return fsys, err
	}
	fsys, err := render(0)
	if err != nil {
		t.Fatal(err)
	}
	// One byte less than the chart's files and its rendering: the files
	// still fit, so the rendering is what tips the total.
	_, err = render(fsys.Used() - 1)
	if err == nil || !strings.Contains(err.Error(), "Chart.yaml: the inputs are larger than") || !strings.Contains(err.Error(), "--max-input-size") {
		t.Errorf("%v", err)
	}
}
