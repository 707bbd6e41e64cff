package baseline

import (
	"strings"
	"testing"

	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

// A key held twice makes two findings existing; the one whose message the
// baseline held word for word goes first, whatever the order; a third of
// the same key, a new node, or a new rule is new. The line never counts.
func TestMarkByRuleObjectAndNode(t *testing.T) {
	b, err := Parse("base.json", []byte(`{"findings": [
	  {"rule": "DRV014", "object": {"kind": "Deployment", "namespace": "ml", "name": "a"}, "message": "no known node carries label x", "line": 3},
	  {"rule": "DRV014", "object": {"kind": "Deployment", "namespace": "ml", "name": "a"}, "message": "no known node carries label y", "line": 4},
	  {"rule": "DRV001", "object": {"kind": "Node", "name": "n1"}, "node": "n1", "message": "old tag"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	dep := object.Ref{Kind: "Deployment", Namespace: "ml", Name: "a"}
	fs := []policy.Finding{
		{Rule: "DRV014", Object: dep, Message: "no known node carries label z", Line: 9},
		{Rule: "DRV014", Object: dep, Message: "no known node carries label y", Line: 10},
		{Rule: "DRV014", Object: dep, Message: "no known node carries label w"},
		{Rule: "DRV001", Object: object.Ref{Kind: "Node", Name: "n1"}, Node: "n1", Message: "new tag, same node"},
		{Rule: "DRV001", Object: object.Ref{Kind: "Node", Name: "n2"}, Node: "n2", Message: "old tag"},
		{Rule: "DRV010", Object: dep, Message: "no known node carries label x"},
	}
	b.Mark(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Baseline)
	}
	if want := "existing existing new existing new new"; strings.Join(got, " ") != want {
		t.Fatalf("marks %v, want %s", got, want)
	}
	if fresh, existing := Count(fs); fresh != 3 || existing != 3 || len(Fresh(fs)) != 3 {
		t.Fatalf("counts %d %d", fresh, existing)
	}
}

func TestParseRefuses(t *testing.T) {
	for body, want := range map[string]string{
		`[1, 2]`:                       "not a drvcheck -o json report",
		`{"summary": {}}`:              "not a drvcheck -o json report",
		`{"findings": null}`:           "not a drvcheck -o json report",
		`{"findings": [{"rule": ""}]}`: "a finding without a rule",
	} {
		if _, err := Parse("b.json", []byte(body)); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--baseline b.json: ") {
			t.Errorf("%.30s: %v, want %q", body, err, want)
		}
	}
}
