package load

import (
	"fmt"
	"strings"

	"helm.sh/helm/v4/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/oneline"
)

// OperatorInstall is a GitOps object that installs NVIDIA's gpu-operator
// chart from a chart repository, the way most GitOps repositories install
// the operator: an Argo CD Application (a source with chart gpu-operator),
// a Flux HelmRelease (spec.chart.spec.chart gpu-operator) or a K3s/RKE2
// HelmChart (helm.cattle.io/v1, spec.chart gpu-operator). The chart is
// not rendered (drvcheck fetches nothing), but its inline values are the
// GPU Operator's configuration, and its pinned version the operator's
// release (the chart's version is the operator's).
type OperatorInstall struct {
	From    *Object
	Version string         // the chart version pinned, "" when none
	Values  map[string]any // the inline values, parameters applied
}

// operatorChart says whether chart names NVIDIA's gpu-operator chart, as
// a repository chart name (gpu-operator, nvidia/gpu-operator) or an OCI
// reference (oci://…/gpu-operator).
func operatorChart(chart string) bool {
	return chart == "gpu-operator" || strings.HasSuffix(chart, "/gpu-operator")
}

// operatorInstalls reads the gpu-operator installs o makes; where o takes
// values from elsewhere (valuesFrom, a values file of another source) it
// is noted, since those values are not read.
func operatorInstalls(o *Object) ([]OperatorInstall, []string) {
	spec, _ := raw(o)["spec"].(map[string]any)
	switch o.Kind {
	case "Application":
		return argoInstalls(o, spec)
	case "HelmRelease":
		return fluxInstall(o, spec)
	case "HelmChart":
		return cattleInstall(o, spec)
	}
	return nil, nil
}

func argoInstalls(o *Object, spec map[string]any) ([]OperatorInstall, []string) {
	srcs, _ := spec["sources"].([]any)
	if s, ok := spec["source"]; ok {
		srcs = append([]any{s}, srcs...)
	}
	var out []OperatorInstall
	var notes []string
	for _, s := range srcs {
		src, _ := s.(map[string]any)
		chart, _ := src["chart"].(string)
		if !operatorChart(chart) {
			continue
		}
		helm, _ := src["helm"].(map[string]any)
		vals, err := withSet(cloneValues(argoValues(helm)), argoParameters(helm))
		if err != nil {
			notes = append(notes, err.Error())
		}
		if files := stringList(helm["valueFiles"]); len(files) > 0 {
			notes = append(notes, fmt.Sprintf("chart %s: valueFiles %s are not read as the operator's configuration; its inline values are", chart, strings.Join(files, ", ")))
		}
		version, _ := src["targetRevision"].(string)
		out = append(out, OperatorInstall{From: o, Version: version, Values: vals})
	}
	return out, notes
}

func fluxInstall(o *Object, spec map[string]any) ([]OperatorInstall, []string) {
	chartSpec, _ := At(spec, "chart", "spec").(map[string]any)
	chart, _ := chartSpec["chart"].(string)
	if !operatorChart(chart) {
		return nil, nil
	}
	vals, _ := spec["values"].(map[string]any)
	version, _ := chartSpec["version"].(string)
	var notes []string
	if from, ok := spec["valuesFrom"].([]any); ok && len(from) > 0 {
		notes = append(notes, "chart gpu-operator: valuesFrom is not read as the operator's configuration (it is in the cluster); spec.values is")
	}
	return []OperatorInstall{{From: o, Version: version, Values: cloneValues(vals)}}, notes
}

// cattleInstall reads a K3s/RKE2 HelmChart: valuesContent is a values
// file's text, and set is applied over it as --set.
func cattleInstall(o *Object, spec map[string]any) ([]OperatorInstall, []string) {
	chart, _ := spec["chart"].(string)
	if !operatorChart(chart) {
		return nil, nil
	}
	vals := map[string]any{}
	var notes []string
	if text, _ := spec["valuesContent"].(string); text != "" {
		if err := yaml.Unmarshal([]byte(text), &vals); err != nil {
			return nil, []string{fmt.Sprintf("spec.valuesContent is not YAML: %s", oneline.Error(err))}
		}
	}
	set, _ := spec["set"].(map[string]any)
	var pairs []string
	for k, v := range set {
		pairs = append(pairs, k+"="+fmt.Sprint(v))
	}
	vals, err := withSet(vals, pairs)
	if err != nil {
		notes = append(notes, err.Error())
	}
	version, _ := spec["version"].(string)
	return []OperatorInstall{{From: o, Version: version, Values: vals}}, append(notes, installNote)
}

// withSet applies --set pairs over vals, as Helm does.
func withSet(vals map[string]any, set []string) (map[string]any, error) {
	if vals == nil {
		vals = map[string]any{}
	}
	for _, s := range set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return vals, fmt.Errorf("parameter %s: %s", s, oneline.Error(err))
		}
	}
	return vals, nil
}

// cloneValues copies vals deeply enough that the operator's typing of it
// does not change the object as read.
func cloneValues(vals map[string]any) map[string]any {
	out := make(map[string]any, len(vals))
	for k, v := range vals {
		if m, ok := v.(map[string]any); ok {
			v = cloneValues(m)
		}
		out[k] = v
	}
	return out
}
