package inventory

import (
	"reflect"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/object"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

func objects(t *testing.T, src string) []*load.Object {
	t.Helper()
	objs, err := load.Parse(&load.Source{Name: "m.yaml"}, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func TestKindsAreDecodedAndOthersCounted(t *testing.T) {
	inv, err := FromObjects(objects(t, `apiVersion: v1
kind: Node
metadata: {name: n}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      containers: [{name: c, image: i}]
---
apiVersion: example.com/v1
kind: Deployment
metadata: {name: crd}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
`), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Nodes) != 1 || len(inv.Deployments) != 1 || inv.Objects != 4 {
		t.Fatalf("nodes %d deployments %d objects %d", len(inv.Nodes), len(inv.Deployments), inv.Objects)
	}
	d := inv.Deployments[0]
	if d.Namespace != "default" {
		t.Fatalf("namespace %q, want default", d.Namespace)
	}
	if o := inv.Origin(object.Ref{Kind: "Deployment", Namespace: "default", Name: "d"}); o == nil || o.Line != 5 {
		t.Fatalf("origin %+v", o)
	}
	ws := inv.Workloads()
	if len(ws) != 1 || ws[0].Replicas != 1 || ws[0].Template.Spec.Containers[0].Image != "i" {
		t.Fatalf("workloads %+v", ws)
	}
	if inv.Raw() != nil {
		t.Fatal("raw kept without keepRaw")
	}
	if len(inv.ConfigMaps) != 1 || inv.ConfigMaps[0].Namespace != "default" {
		t.Fatalf("configmaps %+v", inv.ConfigMaps)
	}
}

// A ConfigMap given twice (a base and its overlay's output) is no
// conflict: drvcheck reads ConfigMaps for what they hold, not to apply.
func TestConfigMapTwiceIsNoConflict(t *testing.T) {
	inv, err := FromObjects(objects(t, `apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: gpu-operator}
data: {any: "version: v1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: gpu-operator}
data: {any: "version: v1"}
`), false)
	if err != nil || len(inv.ConfigMaps) != 2 {
		t.Fatalf("%v %d", err, len(inv.ConfigMaps))
	}
}

func TestDecodeErrorsNameTheObjectAndComeInReadOrder(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"wrong type": {"apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: [1]}}\n",
			"Node/n (m.yaml:3): metadata.labels.a: want a string, got a list"},
		"duplicate": {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
			"Node/n (m.yaml:5): defined twice, also at m.yaml:1"},
		"a ConfigMap's data": {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: [1]\n",
			"ConfigMap/default/c (m.yaml:5): data.a: want a string, got a list"},
		"old version first": {"apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: [1]}}\n",
			"CronJob/default/c (m.yaml:1): apiVersion batch/v1beta1 is not served"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := FromObjects(objects(t, c.src), false)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want prefix %q", err, c.want)
			}
		})
	}
}

// Numbers are checked against the field they decode into, wherever it sits:
// a 64-bit field takes a big number, a 32-bit one does not.
func TestOverflowFollowsTheFieldTypes(t *testing.T) {
	pod := map[string]any{"spec": map[string]any{
		"activeDeadlineSeconds": int64(1) << 40,
		"containers":            []any{map[string]any{"name": "c", "ports": []any{map[string]any{"containerPort": int64(80)}}}},
	}}
	if p := overflow(pod, reflect.TypeFor[corev1.Pod](), nil); p != nil {
		t.Fatalf("a 64-bit field flagged at %v", p)
	}
	pod["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["ports"].([]any)[0].(map[string]any)["containerPort"] = int64(1) << 33
	if p := overflow(pod, reflect.TypeFor[corev1.Pod](), nil); dotted(p) != "spec.containers[0].ports[0].containerPort" {
		t.Fatalf("path %v", p)
	}
	pdb := map[string]any{"spec": map[string]any{"minAvailable": int64(1) << 32}}
	if p := overflow(pdb, reflect.TypeFor[policyv1.PodDisruptionBudget](), nil); dotted(p) != "spec.minAvailable" {
		t.Fatalf("an IntOrString past 32 bits: %v", p)
	}
}

// A value of the wrong type is an error naming the field and its line,
// not apimachinery's "cannot restore struct from: int64".
func TestTypeErrorsNameTheField(t *testing.T) {
	cases := map[string]string{
		"replicas: three": `spec.replicas: want an integer, got the string "three"`,
		"template: {spec: {containers: {name: c}}}":   "spec.template.spec.containers: want a list, got a mapping",
		"template: {metadata: {labels: [a]}}":         "spec.template.metadata.labels: want a mapping, got a list",
		"selector: 5":                                 "spec.selector: want a mapping, got 5",
		"template: {spec: {nodeSelector: {a: true}}}": "spec.template.spec.nodeSelector.a: want a string, got true",
		"template: {spec: {containers: [{name: c, resources: {limits: {cpu: lots}}}]}}": "spec.template.spec.containers[0].resources.limits.cpu: quantities must match",
	}
	for spec, want := range cases {
		src := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  " + spec + "\n"
		_, err := Parse("d.yaml", []byte(src), false)
		if err == nil || !strings.Contains(err.Error(), "(d.yaml:5): "+want) {
			t.Errorf("%s: error %v, want line 5 and %q", spec, err, want)
		}
	}
}

// An object with only metadata.generateName (valid with kubectl create,
// common in tutorials' Jobs) is checked, named by its prefix and "*"; two
// of them with one prefix are two objects, not one defined twice.
func TestGenerateName(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: cuda-vectoradd-}\nspec:\n  template:\n    spec: {restartPolicy: Never, containers: [{name: c, image: i}]}\n"
	inv, err := Parse("jobs.yaml", []byte(job+"---\n"+job), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Jobs) != 2 || inv.Jobs[0].Name != "cuda-vectoradd-*" {
		t.Fatalf("jobs %d, name %q", len(inv.Jobs), inv.Jobs[0].Name)
	}
}
