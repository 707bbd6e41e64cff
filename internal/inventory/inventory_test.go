package inventory

import (
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/object"
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
}

func TestDecodeErrorsNameTheObjectAndComeInReadOrder(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"wrong type": {"apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: [1]}}\n",
			"Node/n (m.yaml:1): "},
		"duplicate": {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
			"Node/n (m.yaml:5): defined twice, also at m.yaml:1"},
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
