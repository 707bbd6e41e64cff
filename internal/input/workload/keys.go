package workload

import (
	"github.com/drvcheck/drvcheck/internal/input/docval"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/sched"
)

// unknownKeys lists the label keys w's nodeSelector and node affinity
// (required and preferred) name that no known node carries (DRV014), each
// with the closest known key as a suggestion when one is close enough.
func (c *workloadFacts) unknownKeys(w *inventory.Workload, reqs []sched.Requirement) []any {
	out := []any{}
	for _, r := range reqs {
		if c.labelKeys[r.Key] {
			continue
		}
		field := specField(w, r.Path...)
		if r.From != sched.FromNodeSelector {
			field = append(field, "key")
		}
		out = append(out, map[string]any{
			"key":        r.Key,
			"operator":   string(r.Operator),
			"from":       r.From,
			"suggestion": c.suggest(r.Key),
			"field":      docval.Pointer(field),
		})
	}
	return out
}

// suggest returns the known key key was probably meant to be: the same
// fact under the other gpu-feature-discovery name, else the known key at the
// smallest edit distance, if that distance is small for key's length.
func (c *workloadFacts) suggest(key string) string {
	if s, ok := c.suggestions[key]; ok {
		return s
	}
	best := ""
	if alias := nodefacts.Alias(key); alias != "" && c.labelKeys[alias] {
		best = alias
	} else {
		limit := max(2, len(key)/8) // typos are an edit or two; gpu.count is not gpu.product
		bestDist := limit + 1
		for _, k := range c.sortedKeys {
			if d := editDistance(key, k, bestDist); d < bestDist {
				best, bestDist = k, d
			}
		}
	}
	c.suggestions[key] = best
	return best
}

// editDistance is the Levenshtein distance between a and b, or any value
// >= limit once it is known to reach limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
