package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"

	"github.com/open-policy-agent/opa/v1/storage"

	rules "github.com/drvcheck/drvcheck/rego"
)

// Data returns the document at path in the data (built-in and --data), or
// nil when there is none. Go-side fact gathering reads its user-extensible
// tables from there, so that one --data file serves Go and Rego alike.
func (e *Engine) Data(ctx context.Context, path ...string) (any, error) {
	v, err := storage.ReadOne(ctx, e.store, storage.Path(path))
	if storage.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, oneLine(err)
	}
	return v, nil
}

// builtinData reads the embedded data files (rego/data) and, for the Rego
// tests, the lab's input document.
func builtinData(withTests bool) (map[string]any, error) {
	docs := map[string]any{}
	files, err := fs.Glob(rules.FS, "data/*.json")
	if err != nil {
		return nil, err
	}
	for _, name := range files {
		var doc map[string]any
		if err := readJSON(name, &doc); err != nil {
			return nil, err
		}
		merge(docs, doc)
	}
	if withTests {
		var lab any
		if err := readJSON("testdata/lab_input.json", &lab); err != nil {
			return nil, err
		}
		p := rules.LabInput
		merge(docs, map[string]any{p[0]: map[string]any{p[1]: map[string]any{p[2]: lab}}})
	}
	return docs, nil
}

func readJSON(name string, v any) error {
	raw, err := fs.ReadFile(rules.FS, name)
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		return fmt.Errorf("rego/%s: %v", name, err)
	}
	return nil
}

// UpgradeState is one value of nvidia.com/gpu-driver-upgrade-state.
type UpgradeState struct {
	Name  string `json:"name"`
	Waits string `json:"waits"`
	// HeldBy names what can hold a node in this state: "evictions"
	// (budgets, drain flags) or "image" (the new driver image).
	HeldBy []string `json:"held_by"`
	// Requestor: only the library's requestor mode uses the state; the
	// GPU Operator never does, so it is no step of its path.
	Requestor bool `json:"requestor,omitempty"`
}

// Upgrade is the GPU Operator's upgrade state table that rules read as
// data.drvcheck.upgrade (rego/data/upgrade.json).
type Upgrade struct {
	Label  string         `json:"label"`
	Path   []UpgradeState `json:"path"`   // in the order a node moves through them
	Failed UpgradeState   `json:"failed"` // off the path
	Done   string         `json:"done"`
}

// Step is the 1-based position of state on the GPU Operator's upgrade
// path; 0 for unset, the failed state, the requestor-mode states and
// values the controller does not use.
func (u *Upgrade) Step(state string) int {
	for i, name := range u.Names() {
		if name == state {
			return i + 1
		}
	}
	return 0
}

// Names lists the states of the GPU Operator's path, in order (the
// requestor-mode states left out).
func (u *Upgrade) Names() []string {
	var out []string
	for _, s := range u.Path {
		if !s.Requestor {
			out = append(out, s.Name)
		}
	}
	return out
}

var upgrade = sync.OnceValues(func() (*Upgrade, error) {
	var doc struct {
		Drvcheck struct {
			Upgrade Upgrade `json:"upgrade"`
		} `json:"drvcheck"`
	}
	err := readJSON("data/upgrade.json", &doc)
	return &doc.Drvcheck.Upgrade, err
})

// UpgradeStates returns the built-in upgrade state table.
func UpgradeStates() *Upgrade {
	u, err := upgrade()
	if err != nil {
		panic(err) // embedded and tested: cannot fail at run time
	}
	return u
}
