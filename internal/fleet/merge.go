package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/fileerr"
	"github.com/drvcheck/drvcheck/policy"
)

// MaxResultSize bounds one result file: a 50,000-node fleet's findings
// are tens of megabytes.
const MaxResultSize = 1 << 30

// Result is a run's -o json as report merge reads it: one cluster's, or
// a merge's (Clusters, each finding tagged).
type Result struct {
	Findings   []policy.Finding        `json:"findings"`
	Suppressed []exceptions.Suppressed `json:"suppressed,omitempty"`
	Summary    policy.Summary          `json:"summary"`
	Cluster    *Cluster                `json:"cluster,omitempty"`
	Clusters   []Cluster               `json:"clusters,omitempty"`
	// Unread are the clusters a merge could not read: a fleet result
	// that lacks them is partial, and a merge of it is too.
	Unread []string `json:"unread_clusters,omitempty"`
}

// Read reads one result file. Anything but drvcheck's JSON (a SARIF
// file, a text report, a field drvcheck never writes) is refused, naming
// the file: a merge that skipped it would pass silently.
func Read(path string) (Result, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxResultSize {
		return Result{}, fmt.Errorf("%s: not a drvcheck result (-o json): not a regular file of at most %d bytes", path, MaxResultSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	return decode(data, path)
}

// decode reads one -o json result; where names it in errors.
func decode(data []byte, where string) (Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Result{}, fmt.Errorf("%s: not a drvcheck result (-o json): %v", where, err)
	}
	if !bytes.Contains(data, []byte(`"summary"`)) || r.Findings == nil {
		return Result{}, fmt.Errorf("%s: not a drvcheck result (-o json): no findings and summary", where)
	}
	return r, r.check(where)
}

// Files are the result files a merge's argument names: the file itself,
// or every .json file under a folder (a CI job's downloaded artifacts, one
// folder each), in name order. A folder without one is an error: merged
// as nothing, the fleet would read as clean.
func Files(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var out []string
	// The root with a separator: a link to a folder is walked as one.
	// Entries are not followed, but every .json one is a result to read
	// (Read refuses what is not a regular file): a link left out would
	// be a cluster dropped without a word.
	root := strings.TrimSuffix(path, string(filepath.Separator)) + string(filepath.Separator)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", p, fileerr.Reason(err))
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(d.Name()), ".json") {
			out = append(out, p)
		}
		return nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s: a folder without a .json result", path)
	}
	return out, err
}

// Merge joins results, each read from its path, into one: every finding
// tagged with its cluster (the result's cluster.name, else the file's
// name without .json), the summaries added up, the clusters listed. A
// merged result may be merged again. Two results of one cluster are
// refused: one of them would be counted twice.
func Merge(paths []string, results []Result) (Result, error) {
	out := Result{Findings: []policy.Finding{}, Clusters: []Cluster{}}
	from := map[string]string{}
	for i, r := range results {
		clusters := r.Clusters
		if len(clusters) == 0 {
			c := Cluster{Name: nameOf(paths[i])}
			if r.Cluster != nil {
				c = *r.Cluster
				if c.Name == "" {
					c.Name = nameOf(paths[i])
				}
			}
			clusters = []Cluster{c}
		}
		for _, c := range clusters {
			if err := CheckName(c.Name); err != nil {
				return Result{}, fmt.Errorf("%s: %w (give its run --cluster-name)", paths[i], err)
			}
			c = c.normalized()
			if p, ok := from[c.Name]; ok {
				return Result{}, fmt.Errorf("cluster %s is in both %s and %s (give each run --cluster-name)", c.Name, p, paths[i])
			}
			from[c.Name] = paths[i]
			out.Clusters = append(out.Clusters, c)
		}
		if len(r.Clusters) > 0 {
			r = withoutFleetFindings(r)
		}
		out.Findings = append(out.Findings, tagged(r.Findings, clusters[0].Name)...)
		for _, s := range r.Suppressed {
			if s.Cluster == "" {
				s.Cluster = clusters[0].Name
			}
			out.Suppressed = append(out.Suppressed, s)
		}
		out.Summary = add(out.Summary, r.Summary)
		out.Unread = append(out.Unread, r.Unread...)
	}
	if len(out.Clusters) == 0 {
		return Result{}, errors.New("no result to merge")
	}
	// The errors and warnings are those merged, counted anew (add
	// leaves them out): a file's summary is not taken on trust.
	out.Summary.Count(out.Findings, 1)
	policy.Sort(out.Findings)
	return out, checkSummary(out.Summary)
}

// normalized has lists where a result wrote null or nothing: the rules
// read them as lists.
func (c Cluster) normalized() Cluster {
	if c.DriverBranches == nil {
		c.DriverBranches = []string{}
	}
	if c.DriverVersions == nil {
		c.DriverVersions = map[string]int{}
	}
	if c.Stacks == nil {
		c.Stacks = []string{}
	}
	return c
}

// withoutFleetFindings drops an earlier merge's findings about its
// fleet (those of no cluster): the merge judges its whole fleet again.
func withoutFleetFindings(r Result) Result {
	r.Findings = slices.DeleteFunc(slices.Clone(r.Findings), func(f policy.Finding) bool { return f.Cluster == "" })
	return r
}

// tagged gives the findings without a cluster the cluster name.
func tagged(fs []policy.Finding, name string) []policy.Finding {
	for i := range fs {
		if fs[i].Cluster == "" {
			fs[i].Cluster = name
		}
	}
	return fs
}

func nameOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".json")
}

// add sums the summaries' counts but errors and warnings, which Merge
// counts from the findings.
func add(a, b policy.Summary) policy.Summary {
	a.Suppressed += b.Suppressed
	a.SkippedRules += b.SkippedRules
	a.UncheckedObjects += b.UncheckedObjects
	a.SkippedFiles += b.SkippedFiles
	a.GPUNodes += b.GPUNodes
	a.Objects += b.Objects
	return a
}
