package input

import (
	"context"
	"testing"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
)

func inventoryOf(t *testing.T, paths ...string) *inventory.Inventory {
	t.Helper()
	inv, err := inventory.Read(context.Background(), paths, load.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

const labDir = "../../testdata/lab/k8s"

// build is Build with the facts of inv's nodes.
func build(inv *inventory.Inventory, cat *catalog.Catalog, opt Options) map[string]any {
	return Build(inv, nodefacts.All(inv.Nodes), cat, opt)
}
