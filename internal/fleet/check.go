package fleet

import (
	"fmt"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/drvcheck/drvcheck/policy"
)

// maxCount bounds a summary's counts: far above any fleet, and far below
// what a sum of a few thousand results could overflow.
const maxCount = 1 << 40

// check refuses a result no drvcheck run writes, naming where it was
// read: merged, its contradictions would be counted as the fleet's
// (findings of a cluster it does not list, counts below zero), and its
// names would reach every format and the terminal.
func (r *Result) check(where string) error {
	if r.Cluster != nil && len(r.Clusters) > 0 {
		return fmt.Errorf("%s: not a drvcheck result (-o json): both cluster and clusters", where)
	}
	if err := checkSummary(r.Summary); err != nil {
		return fmt.Errorf("%s: not a drvcheck result (-o json): %w", where, err)
	}
	listed := map[string]bool{}
	for _, c := range r.clusters() {
		if err := c.check(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		listed[c.Name] = true
	}
	for _, f := range r.Findings {
		switch {
		case f.Cluster == "":
		case len(r.Clusters) > 0 && !listed[f.Cluster]:
			return fmt.Errorf("%s: a finding of cluster %q, which its clusters do not list", where, f.Cluster)
		case len(r.Clusters) == 0 && r.Cluster != nil && r.Cluster.Name != "" && f.Cluster != r.Cluster.Name:
			return fmt.Errorf("%s: a finding of cluster %q in the result of cluster %q", where, f.Cluster, r.Cluster.Name)
		}
	}
	return nil
}

// clusters are the clusters a result lists: a merge's, or its one.
func (r *Result) clusters() []Cluster {
	if r.Cluster != nil {
		return []Cluster{*r.Cluster}
	}
	return r.Clusters
}

// checkSummary bounds a summary's counts.
func checkSummary(s policy.Summary) error {
	for _, n := range []int{s.Errors, s.Warnings, s.Suppressed, s.SkippedRules, s.UncheckedObjects, s.SkippedFiles, s.GPUNodes, s.Objects} {
		if n < 0 || n > maxCount {
			return fmt.Errorf("a summary count of %d", n)
		}
	}
	return nil
}

// check holds a cluster to what --cluster-name and --cluster-label
// accept.
func (c Cluster) check() error {
	if c.Name != "" {
		if err := CheckName(c.Name); err != nil {
			return err
		}
	}
	for k, v := range c.Labels {
		if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
			return fmt.Errorf("cluster %s: label %q=%q is not a Kubernetes label", oneLine(c.Name), oneLine(k), oneLine(v))
		}
	}
	return nil
}

// CheckName refuses a cluster name that would not read as one in every
// format: empty, with spaces at either end, or with a character that is
// not printable (a line break would start a line of its own).
func CheckName(name string) error {
	if strings.TrimSpace(name) != name || name == "" {
		return fmt.Errorf("cluster name %q: empty, or spaces at either end", oneLine(name))
	}
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("cluster name %q: a character that is not printable", oneLine(name))
	}
	return nil
}

// oneLine quotes what an error repeats of the input: %q escapes the rest.
func oneLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
