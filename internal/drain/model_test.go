package drain

import (
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/drain/draintest"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
)

// yamlModel is the model of docs, its files' pods on no node: the budgets'
// numbers do not depend on where the pods run.
func yamlModel(t *testing.T, docs ...string) *Model {
	t.Helper()
	objs, err := load.Parse(&load.Source{Name: "test.yaml"}, []byte(strings.Join(docs, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.FromObjects(objs, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(inv, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func budget(m *Model, name string) *Budget {
	for _, b := range m.Budgets {
		if b.Name() == name {
			return b
		}
	}
	return nil
}

func TestPercentChanges(t *testing.T) {
	m := yamlModel(t, draintest.Nodes(4), draintest.Deployment("web", 4, "app: web", draintest.HostnameAnti),
		draintest.PDB("min", "default", `minAvailable: "100%"`, "app: web"))
	if got := GenericChange(budget(m, "min")).Text; got != "lower min minAvailable from 100% to 75%" {
		t.Fatalf("min: %q", got)
	}
	m = yamlModel(t, draintest.Nodes(4), draintest.Deployment("web", 4, "app: web", draintest.HostnameAnti),
		draintest.PDB("max", "default", `maxUnavailable: "0%"`, "app: web"))
	if got := GenericChange(budget(m, "max")).Text; got != "raise max maxUnavailable from 0% to 1%" {
		t.Fatalf("max: %q", got)
	}
	m = yamlModel(t, draintest.Nodes(1), `apiVersion: v1
kind: Pod
metadata: {name: solo, labels: {app: web}}
spec:
  containers: [{name: c, image: x}]`, draintest.PDB("naked", "default", "maxUnavailable: 1", "app: web"))
	if got := GenericChange(budget(m, "naked")).Text; !strings.HasPrefix(got, "set naked minAvailable to 0 in place of maxUnavailable 1 (its pods have no controller") {
		t.Fatalf("naked: %q", got)
	}
}

func TestInvalidSelectorIsAnErrorNamingTheObject(t *testing.T) {
	inv, err := inventory.Parse("bad.yaml", []byte(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: bad}
spec:
  minAvailable: 1
  selector:
    matchExpressions: [{key: app, operator: Foo, values: [x]}]`), false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(inv, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "PodDisruptionBudget/default/bad (bad.yaml:1): spec.selector:") {
		t.Fatalf("error %v", err)
	}
}
