package policy

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestResult is the outcome of one Rego test rule (test_*).
type TestResult struct {
	Package  string        `json:"package"` // e.g. drvcheck.rules.drv001_test
	Name     string        `json:"name"`    // e.g. test_lab_node_3_lacks_its_image
	File     string        `json:"file"`
	Row      int           `json:"row"`
	Outcome  string        `json:"outcome"`         // pass, fail, error or skip
	Error    string        `json:"error,omitempty"` // the runtime error of an "error" outcome
	Output   string        `json:"output,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Test outcomes.
const (
	Pass  = "pass"
	Fail  = "fail"
	Erred = "error"
	Skip  = "skip" // a todo_test_ rule
)

// Verify runs the Rego unit tests (*_test.rego) of the built-in rules and
// of the user's policies (opt.Policies, files or folders) with OPA's tester,
// over opt.Data. Rules and tests compile together, so a user's test can
// import data.drvcheck.lib and the built-in rules. A compile error is
// returned as an error; failing tests are results. Results are ordered by
// file and row.
func Verify(ctx context.Context, opt Options) ([]TestResult, error) {
	mods, _, store, err := sources(opt, true)
	if err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().WithStrict(false).WithEnablePrintStatements(true).WithCapabilities(capabilities(opt.AllowNet))
	ch, err := tester.NewRunner().
		SetCompiler(compiler).
		SetStore(store).
		SetModules(moduleMap(mods)).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		SetTimeout(time.Minute).
		RunTests(ctx, nil)
	if err != nil {
		return nil, oneLine(err)
	}
	var out []TestResult
	for r := range ch {
		out = append(out, testResult(r))
	}
	slices.SortFunc(out, func(a, b TestResult) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Row, b.Row), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

func testResult(r *tester.Result) TestResult {
	t := TestResult{Package: strings.TrimPrefix(r.Package, "data."), Name: r.Name, Duration: r.Duration,
		Output: string(r.Output), Outcome: Pass}
	if r.Location != nil {
		t.File, t.Row = r.Location.File, r.Location.Row
	}
	switch {
	case r.Skip:
		t.Outcome = Skip
	case r.Error != nil:
		t.Outcome, t.Error = Erred, oneLine(r.Error).Error()
	case r.Fail:
		t.Outcome = Fail
	}
	return t
}
