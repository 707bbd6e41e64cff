package rego

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/tester"
)

// TestRegoUnitTests runs every *_test.rego beside the built-in rules, so
// that `go test ./...` fails when a rule stops doing what its tests say.
func TestRegoUnitTests(t *testing.T) {
	results, err := tester.Run(context.Background(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("no Rego test ran")
	}
	for _, r := range results {
		if r.Fail || r.Error != nil {
			t.Errorf("%s: %s (%v)", r.Package, r.Name, r.Error)
		}
	}
}
