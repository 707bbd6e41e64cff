package cuda

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Table maps an image repository (as written, registry included) and a tag
// or release to the CUDA release the image is built on. A release is the
// part of the tag before the first "-": nvcr.io/nvidia/pytorch:24.07-py3 is
// release 24.07 of nvcr.io/nvidia/pytorch.
type Table map[string]map[string]Entry

// Entry is one row of a Table.
type Entry struct {
	CUDA   Version
	Source string // where the row comes from: a release-notes URL, or "--data"
}

func (t Table) add(repo, release string, e Entry) {
	if t[repo] == nil {
		t[repo] = map[string]Entry{}
	}
	t[repo][release] = e
}

// lookup finds the row for the whole tag, else for its release.
func (t Table) lookup(repo, tag, release string) (Entry, bool) {
	rows := t[repo]
	if e, ok := rows[tag]; ok {
		return e, true
	}
	e, ok := rows[release]
	return e, ok
}

// DataPath is where users extend the table, in --data files:
//
//	drvcheck:
//	  cuda:
//	    images:
//	      nvcr.io/nvidia/pytorch:
//	        "25.03": "12.8.1"
var DataPath = []string{"drvcheck", "cuda", "images"}

// TableFromData reads the document found at DataPath (nil when absent): an
// object of repositories, each an object of tags or releases to CUDA
// versions written as strings.
func TableFromData(doc any) (Table, error) {
	t := Table{}
	if doc == nil {
		return t, nil
	}
	repos, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("data drvcheck.cuda.images: want an object of image repositories, got %s", kindOf(doc))
	}
	for _, repo := range sortedKeys(repos) {
		rows, ok := repos[repo].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("data drvcheck.cuda.images[%q]: want an object of releases to CUDA versions, got %s", repo, kindOf(repos[repo]))
		}
		for _, release := range sortedKeys(rows) {
			v, err := dataVersion(rows[release])
			if err != nil {
				return nil, fmt.Errorf("data drvcheck.cuda.images[%q][%q]: %v", repo, release, err)
			}
			t.add(repo, release, Entry{CUDA: v, Source: "--data"})
		}
	}
	return t, nil
}

// dataVersion accepts a string; a bare YAML number such as 12.10 would
// already have lost its last digit, so numbers are refused.
func dataVersion(v any) (Version, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		return Version{}, fmt.Errorf("CUDA version %s must be quoted (\"%s\")", x, x)
	default:
		return Version{}, fmt.Errorf("want a CUDA version string such as \"12.8.1\", got %s", kindOf(v))
	}
	return ParseVersion(s)
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", v)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
