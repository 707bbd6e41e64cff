package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/drvcheck/drvcheck/policy"
)

// runVerify runs the Rego unit tests of the built-in rules and of the
// user's policies (DIR arguments, --policy and the config's policy list).
// Exit 0 when every test passes, 1 when one fails or errs, 2 when the
// policies do not compile.
func runVerify(ctx context.Context, e *env, args []string) error {
	o := newFlags("verify", "[DIR...]", e.stderr)
	if err := o.parse(args); err != nil {
		return err
	}
	if o.fs.Changed("output") && o.output != "text" && o.output != "json" {
		return fmt.Errorf("verify: --output %q: want text or json", o.output)
	}
	dirs := append(o.fs.Args(), o.policies...)
	results, err := policy.Verify(ctx, policy.Options{Policies: dirs, Data: o.data})
	if err != nil {
		return err
	}
	if o.fs.Changed("output") && o.output == "json" {
		err = printVerifyJSON(e.stdout, results)
	} else {
		err = printVerifyText(e.stdout, results)
	}
	if err != nil {
		return err
	}
	for _, r := range results {
		if r.Outcome == policy.Fail || r.Outcome == policy.Erred {
			return errFindings
		}
	}
	return nil
}

// printVerifyText prints one line per test, the output of failing tests,
// and a closing count.
func printVerifyText(w io.Writer, results []policy.TestResult) error {
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Outcome]++
		fmt.Fprintf(w, "%-5s %s.%s  %s:%d", label(r.Outcome), r.Package, r.Name, r.File, r.Row)
		if r.Outcome == policy.Pass {
			fmt.Fprintf(w, "  (%s)", r.Duration.Round(10_000))
		}
		fmt.Fprintln(w)
		if r.Error != "" {
			fmt.Fprintf(w, "      %s\n", r.Error)
		}
		if r.Output != "" && r.Outcome != policy.Pass {
			fmt.Fprintf(w, "      print output: %s\n", oneLine(r.Output))
		}
	}
	failed := counts[policy.Fail] + counts[policy.Erred]
	_, err := fmt.Fprintf(w, "%d passed, %d failed", counts[policy.Pass], failed)
	if counts[policy.Skip] > 0 {
		fmt.Fprintf(w, ", %d skipped", counts[policy.Skip])
	}
	fmt.Fprintln(w)
	return err
}

func label(outcome string) string {
	switch outcome {
	case policy.Pass:
		return "PASS"
	case policy.Fail:
		return "FAIL"
	case policy.Erred:
		return "ERROR"
	}
	return "SKIP"
}

func printVerifyJSON(w io.Writer, results []policy.TestResult) error {
	if results == nil {
		results = []policy.TestResult{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"tests": results})
}
