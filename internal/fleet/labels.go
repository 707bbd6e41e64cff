package fleet

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ParseLabels reads --cluster-label KEY=VALUE, each checked as a
// Kubernetes label, so that a fleet's labels read as its clusters' do.
func ParseLabels(specs []string) (map[string]string, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, s := range specs {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("--cluster-label %q: want KEY=VALUE, e.g. env=prod", s)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, fmt.Errorf("--cluster-label %q: key: %s", s, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("--cluster-label %q: value: %s", s, strings.Join(errs, "; "))
		}
		if w, ok := out[k]; ok && w != v {
			return nil, fmt.Errorf("--cluster-label %s given twice (%s and %s)", k, w, v)
		}
		out[k] = v
	}
	return out, nil
}

// GroupBy puts each cluster of a merged result in the group its label
// key names (none: one fleet). A cluster without the label is an error
// naming it: judged with no group, its skew would go unseen or be
// blamed on the wrong fleet.
func (r *Result) GroupBy(key string) error {
	for i := range r.Clusters {
		c := &r.Clusters[i]
		c.Group = ""
		if key == "" {
			continue
		}
		v, ok := c.Labels[key]
		if !ok {
			return fmt.Errorf("--group-by %s: cluster %s has no label %s (give its run --cluster-label %s=VALUE)", key, c.Name, key, key)
		}
		c.Group = key + "=" + v
	}
	return nil
}
