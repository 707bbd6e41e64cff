package inventory

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// templateAt is one pod template of a custom resource.
type templateAt struct {
	name     string // which template, e.g. workerGroupSpecs[0]
	path     []any  // from the manifest's root to the template
	bare     bool   // path leads to a pod spec itself, not a template
	replicas int32
	// gangMin is the object's pods that must run together, when it says
	// fewer than all (a Volcano Job's minAvailable); 0: all.
	gangMin int32
}

// rayTemplates: the head group (one pod) and each worker group (replicas,
// else minReplicas), under prefix.
func rayTemplates(prefix ...any) func(map[string]any) []templateAt {
	return func(root map[string]any) []templateAt {
		c, _ := load.At(root, prefix[1:]...).(map[string]any)
		base := slices.Clone(prefix)
		var out []templateAt
		if _, ok := load.At(c, "headGroupSpec", "template").(map[string]any); ok {
			out = append(out, templateAt{name: "headGroupSpec", path: append(slices.Clone(base), "headGroupSpec", "template"), replicas: 1})
		}
		groups, _ := load.At(c, "workerGroupSpecs").([]any)
		for i, g := range groups {
			gm, _ := g.(map[string]any)
			if _, ok := load.At(gm, "template").(map[string]any); !ok {
				continue
			}
			n := count(gm, "replicas", count(gm, "minReplicas", 1))
			name := fmt.Sprintf("workerGroupSpecs[%d]", i)
			if g, _ := gm["groupName"].(string); g != "" {
				name += " (" + g + ")"
			}
			out = append(out, templateAt{name: name, path: append(slices.Clone(base), "workerGroupSpecs", i, "template"), replicas: n})
		}
		return out
	}
}

// replicaSpecs: Kubeflow's map of roles (Master, Worker) to replica specs.
func replicaSpecs(field string) func(map[string]any) []templateAt {
	return func(spec map[string]any) []templateAt {
		roles, _ := spec[field].(map[string]any)
		var out []templateAt
		for _, role := range slices.Sorted(maps.Keys(roles)) {
			rm, _ := roles[role].(map[string]any)
			if _, ok := rm["template"].(map[string]any); ok {
				out = append(out, templateAt{name: field + "." + role, path: []any{"spec", field, role, "template"}, replicas: count(rm, "replicas", 1)})
			}
		}
		return out
	}
}

// jobSetTemplates: each replicated Job's pod template, replicas times its
// parallelism.
func jobSetTemplates(spec map[string]any) []templateAt {
	jobs, _ := spec["replicatedJobs"].([]any)
	var out []templateAt
	for i, j := range jobs {
		jm, _ := j.(map[string]any)
		jobSpec, _ := load.At(jm, "template", "spec").(map[string]any)
		if _, ok := jobSpec["template"].(map[string]any); !ok {
			continue
		}
		name := fmt.Sprintf("replicatedJobs[%d]", i)
		if n, _ := jm["name"].(string); n != "" {
			name += " (" + n + ")"
		}
		out = append(out, templateAt{name: name, path: []any{"spec", "replicatedJobs", i, "template", "spec", "template"},
			replicas: count(jm, "replicas", 1) * count(jobSpec, "parallelism", 1)})
	}
	return out
}

// lwsTemplates: a leader per group (its own template, or the worker's) and
// size-1 workers each.
func lwsTemplates(spec map[string]any) []templateAt {
	groups := count(spec, "replicas", 1)
	lwt, _ := spec["leaderWorkerTemplate"].(map[string]any)
	size := count(lwt, "size", 1)
	var out []templateAt
	workers := groups * size
	if _, ok := lwt["leaderTemplate"].(map[string]any); ok {
		out = append(out, templateAt{name: "leaderTemplate", path: []any{"spec", "leaderWorkerTemplate", "leaderTemplate"}, replicas: groups})
		workers = groups * (size - 1)
	}
	if _, ok := lwt["workerTemplate"].(map[string]any); ok {
		out = append(out, templateAt{name: "workerTemplate", path: []any{"spec", "leaderWorkerTemplate", "workerTemplate"}, replicas: workers})
	}
	return out
}

// trainJobTemplates: a Kubeflow Trainer TrainJob's pods come from its
// runtime's JobSet, which this file does not hold; what it does hold is
// each podTemplateOverrides entry, the scheduling fields (nodeSelector,
// affinity, tolerations) that replace the runtime's for the jobs it
// targets. The node job runs numNodes pods.
func trainJobTemplates(spec map[string]any) []templateAt {
	overrides, _ := spec["podTemplateOverrides"].([]any)
	trainer, _ := spec["trainer"].(map[string]any)
	nodes := count(trainer, "numNodes", 1)
	var out []templateAt
	for i, o := range overrides {
		om, _ := o.(map[string]any)
		if _, ok := om["spec"].(map[string]any); !ok {
			continue
		}
		var jobs []string
		replicas := int32(1)
		targets, _ := om["targetJobs"].([]any)
		for _, t := range targets {
			name, _ := load.At(t, "name").(string)
			jobs = append(jobs, name)
			if name == "node" {
				replicas = nodes
			}
		}
		name := fmt.Sprintf("podTemplateOverrides[%d]", i)
		if len(jobs) > 0 {
			name += " (" + strings.Join(jobs, ", ") + ")"
		}
		out = append(out, templateAt{name: name, path: []any{"spec", "podTemplateOverrides", i, "spec"}, bare: true, replicas: replicas})
	}
	return out
}

// volcanoTemplates: each task's template and replicas, and the job's
// minAvailable, the pods gang-scheduled together (batch/v1alpha1 job.go:
// "Defaults to the summary of tasks' replicas").
func volcanoTemplates(spec map[string]any) []templateAt {
	tasks, _ := spec["tasks"].([]any)
	gangMin := count(spec, "minAvailable", 0)
	var out []templateAt
	for i, t := range tasks {
		tm, _ := t.(map[string]any)
		if _, ok := tm["template"].(map[string]any); !ok {
			continue
		}
		name := fmt.Sprintf("tasks[%d]", i)
		if n, _ := tm["name"].(string); n != "" {
			name += " (" + n + ")"
		}
		out = append(out, templateAt{name: name, path: []any{"spec", "tasks", i, "template"}, replicas: count(tm, "replicas", 1), gangMin: gangMin})
	}
	return out
}

// kserveTemplates: the predictor is a pod spec inline (containers,
// affinity, nodeSelector, tolerations beside minReplicas).
func kserveTemplates(spec map[string]any) []templateAt {
	p, ok := spec["predictor"].(map[string]any)
	if !ok {
		return nil
	}
	return []templateAt{{name: "predictor", path: []any{"spec", "predictor"}, bare: true, replicas: count(p, "minReplicas", 1)}}
}

// count reads a non-negative integer field, def when absent.
func count(m map[string]any, key string, def int32) int32 {
	switch v := m[key].(type) {
	case int64:
		if v >= 0 && v <= 1<<31-1 {
			return int32(v)
		}
	case float64:
		if v >= 0 && v <= 1<<31-1 {
			return int32(v)
		}
	}
	return def
}

// customObject is a decoded custom resource: its metadata and a workload
// per pod template.
type customObject struct {
	meta      metav1.ObjectMeta
	workloads []*Workload
}

// decodeCustom reads the pod templates of a known GPU workload kind, or,
// for another custom resource, any pod template found in it (Generic).
// It returns nil for objects without any.
func decodeCustom(o *load.Object, group string, k *Kind) (*customObject, error) {
	spec, _ := o.Raw["spec"].(map[string]any)
	var ts []templateAt
	generic := false
	if k != nil && k.templates != nil {
		ts = k.templates(spec)
	} else if isCustomGroup(group) && !templateOnly[group+"/"+o.Kind] {
		ts, generic = findTemplates(spec, []any{"spec"}, 0), true
	}
	if len(ts) == 0 {
		return nil, nil
	}
	c := &customObject{}
	meta, _ := o.Raw["metadata"].(map[string]any)
	if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(meta, &c.meta); err != nil {
		return nil, fmt.Errorf("%s: metadata: %s", o.Where(), conversionError(err))
	}
	if o.Namespace == "" {
		o.Namespace = load.DefaultNamespace
	}
	c.meta.Namespace = o.Namespace
	ref := object.Ref{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
	for _, t := range ts {
		w, err := customWorkload(o, ref, &c.meta, t)
		if err != nil {
			return nil, err
		}
		w.Generic, w.Kind = generic, k
		c.workloads = append(c.workloads, w)
	}
	return c, nil
}

func customWorkload(o *load.Object, ref object.Ref, meta *metav1.ObjectMeta, t templateAt) (*Workload, error) {
	raw, _ := load.At(o.Raw, t.path...).(map[string]any)
	tmpl := &corev1.PodTemplateSpec{}
	target, specPath := any(tmpl), append(slices.Clone(t.path), "spec")
	if t.bare {
		target, specPath = &tmpl.Spec, slices.Clone(t.path)
	}
	if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(raw, target); err != nil {
		return nil, fmt.Errorf("%s: %s: %s", atField(o, t.path), t.name, conversionError(err))
	}
	return &Workload{Ref: ref, Meta: meta, Template: tmpl, Replicas: t.replicas, SpecPath: specPath,
		Controllers: true, TemplateName: t.name, Custom: true, GangMin: t.gangMin}, nil
}

// isCustomGroup tells a custom resource's group from Kubernetes' own, whose
// kinds drvcheck either reads or that make no pods.
func isCustomGroup(group string) bool {
	return strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io") && group != operator.Group
}

// findTemplates finds, under m, the pod templates of a custom resource
// drvcheck does not know: a template with spec.containers, or a spec with
// containers, at any depth up to 8.
func findTemplates(m map[string]any, path []any, depth int) []templateAt {
	if depth > 8 {
		return nil
	}
	if _, ok := m["containers"].([]any); ok {
		return []templateAt{{name: dottedPath(path[1:]), path: path, bare: true}}
	}
	var out []templateAt
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p := append(slices.Clone(path), k)
		switch v := m[k].(type) {
		case map[string]any:
			if spec, ok := v["spec"].(map[string]any); ok && k == "template" {
				if _, ok := spec["containers"].([]any); ok {
					out = append(out, templateAt{name: dottedPath(p[1:]), path: p})
					continue
				}
			}
			out = append(out, findTemplates(v, p, depth+1)...)
		case []any:
			for i, e := range v {
				if em, ok := e.(map[string]any); ok {
					out = append(out, findTemplates(em, append(slices.Clone(p), i), depth+1)...)
				}
			}
		}
	}
	return out
}

func dottedPath(p []any) string {
	if len(p) == 0 {
		return "spec"
	}
	return dotted(p)
}

// decodeCustomObject is decodeCustom for decode: no templates is nil, not
// a nil *customObject.
func decodeCustomObject(o *load.Object, group string, k *Kind) (any, error) {
	c, err := decodeCustom(o, group, k)
	if c == nil || err != nil {
		return nil, err
	}
	return c, nil
}
