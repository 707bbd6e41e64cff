package plan

import (
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/policy"
)

// VerdictOf is the rollout's answer in one line, and its severity, which
// --fail-on reads as it reads findings': error when a node fails, sticks
// or never starts (check reports such a node under DRV030 once the
// rollout is under way), warning when a scope is not rolled at all
// (autoUpgrade off) or a gang loses its place while a window's nodes are
// out (Displaced, as check's DRV029), none when every managed node
// upgrades.
func VerdictOf(r *Rolling) (verdict, severity string) {
	count := map[string]int{}
	for _, o := range r.Nodes {
		count[o.Outcome]++
	}
	var parts []string
	switch {
	case r.Halts:
		parts = append(parts, fmt.Sprintf("the rollout halts: %d node(s) never start", count[NotStarted]))
	case count[Upgraded] > 0 || count[Failed]+count[Stuck] > 0:
		parts = append(parts, fmt.Sprintf("the rollout finishes: %d node(s) upgraded", count[Upgraded]))
	}
	if n := count[Failed] + count[Stuck]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d failed or stuck", n))
		severity = policy.Error
	}
	if count[NotStarted] > 0 {
		severity = policy.Error
	}
	var off []string
	for _, sc := range r.Scopes {
		if !sc.Policy.AutoUpgrade && !sc.Policy.Manual {
			off = append(off, sc.Name)
		}
	}
	if len(off) > 0 {
		parts = append(parts, "the operator will not roll "+strings.Join(off, ", ")+" (autoUpgrade is off); exit 1 with --fail-on warning")
		if severity == "" {
			severity = policy.Warning
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to upgrade")
	}
	if severity == "" && count[Upgraded] > 0 {
		parts[0] += ", no node stalls"
	}
	if len(r.Displaced) > 0 {
		parts = append(parts, fmt.Sprintf("%d GPU workload(s) lose their place while a window's nodes are out; exit 1 with --fail-on warning", len(r.Displaced)))
		if severity == "" {
			severity = policy.Warning
		}
	}
	return strings.Join(parts, "; "), severity
}
