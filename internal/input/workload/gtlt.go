package workload

import (
	"fmt"

	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// nonInteger is the first node (by name) whose value of a label key
// cannot be compared by Gt/Lt, and how many nodes are like it.
type nonInteger struct {
	node, value string
	count       int
}

// gtLt lists the Gt/Lt requirements of w that can never match (DRV011):
// the value itself is not an integer (the scheduler cannot parse the term),
// or some node carries the key with a value that is not an integer (that
// node never matches, whatever the value).
func (c *workloadFacts) gtLt(w *inventory.Workload, reqs []sched.Requirement) []any {
	var out []any
	for _, r := range reqs {
		if !r.Numeric() {
			continue
		}
		node, reason := "", r.ValueProblem()
		if reason == "" {
			ni := c.nonInteger(r.Key)
			if ni.count == 0 {
				continue
			}
			node = ni.node
			reason = fmt.Sprintf("%s=%s on %s is not an integer", r.Key, ni.value, ni.node)
			if ni.count > 1 {
				reason += fmt.Sprintf(" (and %d more node(s))", ni.count-1)
			}
		}
		out = append(out, map[string]any{
			"key":      r.Key,
			"operator": string(r.Operator),
			"values":   docval.Strings(r.Values),
			"from":     r.From,
			"node":     node,
			"reason":   reason,
			"field":    docval.Pointer(specField(w, r.Path...)),
		})
	}
	if out == nil {
		return []any{}
	}
	return out
}

// nonInteger scans the nodes once per key.
func (c *workloadFacts) nonInteger(key string) nonInteger {
	if ni, ok := c.nonIntegers[key]; ok {
		return ni
	}
	var ni nonInteger
	for _, n := range c.nodes {
		v, ok := n.Labels[key]
		if !ok || sched.IsInteger(v) {
			continue
		}
		if ni.count == 0 || n.Name < ni.node {
			ni.node, ni.value = n.Name, v
		}
		ni.count++
	}
	c.nonIntegers[key] = ni
	return ni
}
