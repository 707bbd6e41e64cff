package inventory

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the kinds table of docs/input.md")

// TestKindsTable keeps the kinds table of docs/input.md what Kinds says.
func TestKindsTable(t *testing.T) {
	const path = "../../docs/input.md"
	const begin, end = "<!-- kinds:begin -->\n", "<!-- kinds:end -->"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q … %q section", path, begin, end)
	}
	got, want := doc[i+len(begin):j], kindsTable()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's kinds table is not inventory.Kinds'; run go test ./internal/inventory -run KindsTable -update\ngot:\n%s\nwant:\n%s", path, got, want)
}

// TestKindsAreWhole: every kind says how it is served and, when it makes
// pods, how; a typed kind decodes, a custom workload finds templates.
func TestKindsAreWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds {
		id := k.Group + "/" + k.Name
		if seen[id] {
			t.Errorf("%s twice", id)
		}
		seen[id] = true
		if k.Resource == "" || (k.Version == "" && !k.Custom) {
			t.Errorf("%s: resource %q, version %q", id, k.Resource, k.Version)
		}
		if (k.typed == nil) == (k.templates == nil) {
			t.Errorf("%s: a kind is either typed or a custom workload", id)
		}
		if k.MakesPods() != (k.Templates != "") || (k.templates != nil && !k.MakesPods()) {
			t.Errorf("%s: templates %q, pods %q", id, k.Templates, k.Pods)
		}
		if k.typed != nil && (k.typed.templates != nil) != k.MakesPods() {
			t.Errorf("%s: the docs and the API type disagree on whether it makes pods", id)
		}
		if k.Budgets && k.typed == nil {
			t.Errorf("%s: budgets need a typed kind", id)
		}
	}
}

// kindsTable is the table of docs/input.md, from Kinds.
func kindsTable() string {
	var b strings.Builder
	b.WriteString("| kind | apiVersion | resource | pod templates | pods per template | budgets |\n|---|---|---|---|---|---|\n")
	for _, k := range Kinds {
		av := k.APIVersion()
		if k.Version == "" {
			av = k.Group + "/*"
		}
		budgets := ""
		if k.Budgets {
			budgets = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | `%s` | %s | %s | %s |\n", k.Name, av, k.String(), orDash(k.Templates), orDash(k.Pods), budgets)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// A ResourceClaim manifest is not read, at any version: what a claim tells
// (which pod holds which device) is in a cluster's status.
func TestResourceClaimsOnlyLive(t *testing.T) {
	for _, v := range []string{"v1", "v1beta1", "v1beta2"} {
		inv, err := Parse("claim.yaml", []byte("apiVersion: resource.k8s.io/"+v+"\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {}\n"), false)
		if err != nil || len(inv.ResourceClaims) != 0 || len(inv.Unread) != 0 {
			t.Errorf("%s: %v, %d claims, unread %v", v, err, len(inv.ResourceClaims), inv.Unread)
		}
	}
}
