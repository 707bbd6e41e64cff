package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/drvcheck/drvcheck/policy"
)

// Verify prints the Rego unit tests' results (verify): one line per test,
// the output of failing tests and a closing count, or {"tests": [...]}.
func Verify(w io.Writer, format string, results []policy.TestResult) error {
	if format == "json" {
		return writeList(w, "tests", results)
	}
	bw := bufio.NewWriter(w)
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Outcome]++
		fmt.Fprintf(bw, "%-5s %s.%s  %s:%d", outcomeLabel(r.Outcome), r.Package, r.Name, r.File, r.Row)
		if r.Outcome == policy.Pass {
			fmt.Fprintf(bw, "  (%s)", r.Duration.Round(10_000))
		}
		fmt.Fprintln(bw)
		if r.Error != "" {
			fmt.Fprintf(bw, "      %s\n", r.Error)
		}
		if r.Output != "" && r.Outcome != policy.Pass {
			fmt.Fprintf(bw, "      print output: %s\n", strings.Join(strings.Fields(r.Output), " "))
		}
	}
	fmt.Fprintf(bw, "%d passed, %d failed", counts[policy.Pass], counts[policy.Fail]+counts[policy.Erred])
	if counts[policy.Skip] > 0 {
		fmt.Fprintf(bw, ", %d skipped", counts[policy.Skip])
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// outcomeLabels are the verify lines' first words; a test not run is SKIP.
var outcomeLabels = map[string]string{policy.Pass: "PASS", policy.Fail: "FAIL", policy.Erred: "ERROR"}

func outcomeLabel(outcome string) string {
	if l, ok := outcomeLabels[outcome]; ok {
		return l
	}
	return "SKIP"
}
