package render

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/policy"
)

//go:embed html/report.html
var htmlSource string

//go:embed html/report.js
var htmlScript string

// scriptHash lets the page's one script run under its
// Content-Security-Policy, and nothing else: a finding's text that
// looked like a script would not run even if it were not escaped.
func scriptHash() string {
	sum := sha256.Sum256([]byte(htmlScript))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// htmlPage is one self-contained page: no request leaves it when it is
// opened (its Content-Security-Policy allows none), its style and its
// small script inline. Parsed when a run first prints one, not at every
// start.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(htmlSource))
})

// HTML prints the report as one page people look at: the counts, each
// cluster with its driver versions as a bar, and the findings as a table
// that sorts by any column and filters by rule, severity, cluster and
// text. A fleet's result (report merge) lists every cluster.
func HTML(w io.Writer, r Report, opt Options) error {
	return htmlPage().Execute(w, pageOf(r, opt))
}

type page struct {
	Script     template.JS
	ScriptHash string
	Version    string
	Summary    policy.Summary
	Clusters   []pageCluster
	Rules      []string
	Findings   []pageFinding
	// Fleet: a merged result, whose findings name their cluster.
	Fleet bool
}

type pageCluster struct {
	Name, Operator, Branches string
	GPUNodes                 int
	Errors, Warnings         int
	Bars                     []pageBar
}

// pageBar is one driver version's share of a cluster's GPU nodes, laid
// out on a bar 100 units wide.
type pageBar struct {
	Version   string
	Nodes     int
	X, Width  float64
	Color     string
	LabelText string
}

type pageFinding struct {
	Severity, Rule, Title, Cluster, Object, Node, Location, Message, Doc string
}

// barColors tell a fleet's driver versions apart, the same version the
// same colour in every cluster.
var barColors = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

func pageOf(r Report, opt Options) page {
	p := page{Script: template.JS(htmlScript), ScriptHash: scriptHash(), Version: opt.Version, Summary: r.Summary, Fleet: len(r.Clusters) > 0} //nolint:gosec // the embedded script, never input
	clusters := r.Clusters
	if len(clusters) == 0 && r.Cluster != nil {
		clusters = []fleet.Cluster{*r.Cluster}
	}
	colors := versionColors(clusters)
	counts := severityCounts(r.Findings)
	for _, c := range clusters {
		key := c.Name
		if !p.Fleet {
			key = "" // one cluster's findings name none
		}
		p.Clusters = append(p.Clusters, clusterOf(c, counts[key], colors))
	}
	rules := map[string]bool{}
	for _, f := range bySeverity(r.Findings) {
		rules[printable(f.Rule)] = true
		node := f.Node
		if f.Object.Kind == "Node" && f.Object.Name == node {
			node = "" // the object says it
		}
		p.Findings = append(p.Findings, pageFinding{
			Severity: printable(f.Severity), Rule: printable(f.Rule), Title: printable(f.Title), Cluster: printable(f.Cluster),
			Object: printable(f.Object.String()), Node: printable(node), Location: printable(fileLine(f, opt)), Message: printable(f.Message), Doc: ruleDoc(f.Rule),
		})
	}
	p.Rules = slices.Sorted(maps.Keys(rules))
	return p
}

// versionColors gives each driver version of the fleet its colour.
func versionColors(clusters []fleet.Cluster) map[string]string {
	var versions []string
	for _, c := range clusters {
		for v := range c.DriverVersions {
			if !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
		}
	}
	slices.Sort(versions)
	out := map[string]string{}
	for i, v := range versions {
		out[v] = barColors[i%len(barColors)]
	}
	return out
}

// severityCounts are the errors and warnings of each cluster the
// findings name, in one pass.
func severityCounts(fs []policy.Finding) map[string][2]int {
	out := map[string][2]int{}
	for _, f := range fs {
		c := out[f.Cluster]
		switch f.Severity {
		case policy.Error:
			c[0]++
		case policy.Warning:
			c[1]++
		}
		out[f.Cluster] = c
	}
	return out
}

func clusterOf(c fleet.Cluster, counts [2]int, colors map[string]string) pageCluster {
	pc := pageCluster{Name: c.Name, Operator: c.OperatorVersion, Branches: strings.Join(c.DriverBranches, ", "), GPUNodes: c.GPUNodes,
		Errors: counts[0], Warnings: counts[1]}
	total := 0
	for _, n := range c.DriverVersions {
		total += n
	}
	x := 0.0
	for _, v := range slices.Sorted(maps.Keys(c.DriverVersions)) {
		n := c.DriverVersions[v]
		w := 100 * float64(n) / float64(total)
		pc.Bars = append(pc.Bars, pageBar{Version: v, Nodes: n, X: x, Width: w, Color: colors[v], LabelText: fmt.Sprintf("%s: %d node(s)", v, n)})
		x += w
	}
	return pc
}

// ruleDoc links a built-in rule to its help in docs/rules.md.
func ruleDoc(rule string) string {
	if !strings.HasPrefix(rule, "DRV") {
		return ""
	}
	return toolURI + "/blob/main/docs/rules.md#" + strings.ToLower(rule)
}
