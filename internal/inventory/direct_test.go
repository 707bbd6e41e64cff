package inventory

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/load"
)

// Every manifest of testdata/ (the lab, the public-source fixtures, the
// fleets) read both ways, straight into the API types (DirectType) and
// through plain values and FromUnstructured, gives the same objects, the
// same errors and the same line for every field: the direct path is the
// plain one made faster, nothing else.
func TestDirectDecodingIsThePlainOne(t *testing.T) {
	direct, typedKinds := 0, 0
	err := filepath.WalkDir("../../testdata", func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !manifest(path) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		d, tk := sameBothWays(t, path, data)
		direct, typedKinds = direct+d, typedKinds+tk
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The fast path must be the one taken: were it to refuse everything,
	// the comparison above would hold and prove nothing.
	if typedKinds == 0 || direct*10 < typedKinds*9 {
		t.Errorf("%d of %d objects of the kinds DirectType names were decoded directly, want 90%% or more", direct, typedKinds)
	}
}

// Documents at the edges of the direct path: what it takes, and what it
// leaves to the plain path, each read both ways.
func TestDirectDecodingEdges(t *testing.T) {
	for name, doc := range map[string]string{
		"quantities and int-or-string": `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns, labels: {a: "1"}, creationTimestamp: null}
spec:
  replicas: 2.0
  strategy: {rollingUpdate: {maxUnavailable: 25%, maxSurge: 1}}
  template:
    metadata: {labels: {a: "1"}}
    spec:
      containers:
      - name: c
        image: i
        resources: {limits: {nvidia.com/gpu: 1, memory: 1.5Gi, cpu: 0.5}}
        ports: [{containerPort: 80}]
      unknownField: {deep: [1, {x: y}]}
      nodeSelector: {k: ~}
`,
		"times and bytes": `apiVersion: v1
kind: Pod
metadata: {name: p, creationTimestamp: "2024-01-02T03:04:05Z", deletionTimestamp: 2024-01-02T03:04:05Z}
spec:
  containers: [{name: c, image: i, command: [], args: null}]
  tolerations: [{key: k, operator: Exists, tolerationSeconds: 30}]
`,
		"a string where a number goes": `apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: "2"}
`,
		"a fraction where an integer goes": `apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: 1.5}
`,
		"a number beyond 32 bits": `apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: 4294967297}
`,
		"a repeated key": `apiVersion: v1
kind: Node
metadata: {name: n, labels: {a: "1", a: "2"}}
`,
		"aliases and a merge": `apiVersion: v1
kind: Node
metadata:
  name: n
  labels: &l {a: "1"}
  annotations: *l
spec:
  <<: {unschedulable: true}
`,
		"generateName": `apiVersion: batch/v1
kind: Job
metadata: {generateName: j-}
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
`,
		"no name": `apiVersion: v1
kind: Node
metadata: {labels: {a: b}}
`,
		"a list where a map goes": `apiVersion: v1
kind: Node
metadata: {name: n, labels: [a]}
`,
		"a bool where a string goes": `apiVersion: v1
kind: Node
metadata: {name: n, labels: {a: true}}
`,
		"an old version": `apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: b}
`,
		"a List": `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n}}
- {apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: x}, spec: {replicas: 3}}
`,
		"a typed List": `apiVersion: v1
kind: NodeList
metadata: {resourceVersion: "1"}
items:
- {metadata: {name: a, labels: {x: "1"}}, status: {capacity: {nvidia.com/gpu: "8"}}}
- {kind: Node, metadata: {name: b}}
`,
		"a List with a bad field beside its items": `apiVersion: v1
kind: List
metadata: {x: !!bool maybe}
items:
- {apiVersion: v1, kind: Node, metadata: {name: n}}
`,
		"a List with its items twice": `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n}}
items: []
`,
		"a List with an item of no kind it reads": `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n}}
- {apiVersion: v1, kind: Service, metadata: {name: s}}
`,
		"a bad field in a field the type lacks": `apiVersion: v1
kind: Node
metadata: {name: n}
extra: {x: !!int twelve}
`,
		"a List named by a number": `apiVersion: v1
kind: List
metadata: {name: 5}
items:
- {apiVersion: v1, kind: Node, metadata: {name: n}}
`,
		"an empty typed List in a list namespace": `apiVersion: v1
kind: NodeList
metadata: {namespace: [a]}
items: []
`,
		"a merge in a field the type lacks, in a List": `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n}
  extra: {<<: {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, k: 11, l: 12, m: 13}, a: 2}
`,
		"the kind twice": `apiVersion: v1
kind: Node
kind: Pod
metadata: {name: n}
`,
	} {
		t.Run(name, func(t *testing.T) { sameBothWays(t, name, []byte(doc)) })
	}
}

// The edges above the direct path takes, so that the test sees it.
func TestDirectDecodingTakesPlainDocuments(t *testing.T) {
	objs, err := load.ParseTyped(&load.Source{Name: "m.yaml"}, []byte(`apiVersion: v1
kind: Pod
metadata: {name: p, creationTimestamp: "2024-01-02T03:04:05Z"}
spec:
  containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]
  unknown: {x: [1, 2]}
`), DirectType)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Raw != nil || objs[0].Decoded == nil {
		t.Fatalf("a plain Pod was not decoded directly: %+v", objs)
	}
	if got := objs[0].FieldLine([]any{"spec", "unknown", "x", 1}); got != 6 {
		t.Errorf("line of spec.unknown.x[1] = %d, want 6", got)
	}
}

func manifest(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// sameBothWays reads data both ways and compares; it returns how many
// objects the direct path decoded, and how many were of kinds it names.
func sameBothWays(t *testing.T, name string, data []byte) (direct, typedKinds int) {
	t.Helper()
	objs, perr := load.ParseTyped(&load.Source{Name: name}, data, DirectType)
	for _, o := range objs {
		if DirectType(o.APIVersion, o.Kind) != nil {
			typedKinds++
			if o.Raw == nil {
				direct++
			}
		}
	}
	plain, err1 := Parse(name, data, true)
	fast, err2 := Parse(name, data, false)
	if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
		t.Fatalf("%s: plain path: %v; direct path: %v", name, err1, err2)
	}
	if perr != nil || err1 != nil {
		return direct, typedKinds
	}
	pv, fv := reflect.ValueOf(plain).Elem(), reflect.ValueOf(fast).Elem()
	for i := range pv.NumField() {
		f := pv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if !reflect.DeepEqual(pv.Field(i).Interface(), fv.Field(i).Interface()) {
			t.Errorf("%s: %s differ between the plain and the direct path", name, f.Name)
		}
	}
	sameLines(t, name, plain, fast)
	return direct, typedKinds
}

// sameLines compares the line of every field of every object.
func sameLines(t *testing.T, name string, plain, fast *Inventory) {
	t.Helper()
	for _, raw := range plain.Raw() {
		o := load.Object{Raw: raw}
		meta, _ := raw["metadata"].(map[string]any)
		o.Kind, _ = raw["kind"].(string)
		o.Name, _ = meta["name"].(string)
		o.Namespace, _ = meta["namespace"].(string)
		ref := o.Ref()
		a, b := plain.Origin(ref), fast.Origin(ref)
		if a == nil && ref.Namespace == "" {
			ref.Namespace = load.DefaultNamespace
			a, b = plain.Origin(ref), fast.Origin(ref)
		}
		if a == nil || b == nil {
			continue // not a kept kind, or a generated name
		}
		walkPaths(raw, nil, func(p []any) {
			if la, lb := a.FieldLine(p), b.FieldLine(p); la != lb {
				t.Errorf("%s: %s %v: line %d on the plain path, %d on the direct one", name, ref, p, la, lb)
			}
		})
	}
}

func walkPaths(v any, prefix []any, each func([]any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := append(append([]any(nil), prefix...), k)
			each(p)
			walkPaths(c, p, each)
		}
	case []any:
		for i, c := range x {
			p := append(append([]any(nil), prefix...), i)
			each(p)
			walkPaths(c, p, each)
		}
	}
}

// FuzzDirectDecoding reads any input both ways: the same objects, errors
// and lines, and never a panic.
func FuzzDirectDecoding(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: b}}\nstatus: {capacity: {nvidia.com/gpu: 8}}\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2, template: {spec: {containers: [{name: c, image: i, resources: {limits: {cpu: 0.5}}}]}}}\n",
		"apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {priority: 1}}]\n",
		"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {maxUnavailable: 10%}\n",
	} {
		f.Add([]byte(seed))
	}
	// Every manifest of testdata/ (public-source fixtures among them) too.
	_ = filepath.WalkDir("../../testdata", func(path string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && manifest(path) {
			if data, err := os.ReadFile(path); err == nil && len(data) < 1<<16 {
				f.Add(data)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) { sameBothWays(t, "fuzz.yaml", data) })
}
