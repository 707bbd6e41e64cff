package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The three clusters of testdata/clusters, each one run's -o json: the lab
// (no operator configuration), and two ClusterPolicy fleets at two
// releases. TestFleetResultsAreCurrent makes them again.
var fleetRuns = []struct{ name, path string }{
	{"eu-1", "eu-1.json"},
	{"us-1", "us-1.json"},
	{"ap-1", "ap-1.json"},
}

func fleetRunArgs(name string) []string {
	matrix := []string{"--matrix", "testdata/lab/support-matrix.csv", "-o", "json", "--cluster-name", name}
	switch name {
	case "eu-1":
		return append([]string{"check", "testdata/lab"}, matrix...)
	case "us-1":
		return append([]string{"check", "testdata/operator/rollout", "--operator-version", "v26.7.0"}, matrix...)
	}
	return append([]string{"check", "testdata/operator/midrollout", "--operator-version", "v26.3.1"}, matrix...)
}

// testdata/clusters holds what check prints for each cluster today (-update
// writes them again).
func TestFleetResultsAreCurrent(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, c := range fleetRuns {
		r := drv(t, fleetRunArgs(c.name)...)
		if r.code != exitFindings {
			t.Fatalf("%s: exit %d: %s", c.name, r.code, r.stderr)
		}
		goldenText(t, filepath.Join("testdata", "clusters", c.path), r.stdout)
	}
}

func fleetFiles() []string {
	var out []string
	for _, c := range fleetRuns {
		out = append(out, filepath.Join("..", "..", "testdata", "clusters", c.path))
	}
	return out
}

type mergedReport struct {
	Findings []struct {
		Rule, Severity, Cluster, Message string
		Object                           struct{ Kind, Namespace, Name string }
	}
	Summary  struct{ Errors, Warnings, GPUNodes int }
	Clusters []struct {
		Name            string
		OperatorVersion string   `json:"operator_version"`
		DriverBranches  []string `json:"driver_branches"`
	}
}

func decodeMerged(t *testing.T, out string) mergedReport {
	t.Helper()
	var m mergedReport
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return m
}

// A fleet result is every cluster's findings, each tagged with its
// cluster, the summaries added up, and the fleet's skew judged: ap-1 runs
// v26.3.1 where us-1 runs v26.7.0 (eu-1 names no release), and the lab's
// nodes run 535 and 550 where the others run 550.
func TestReportMergeTagsEveryFinding(t *testing.T) {
	var want []string
	var errors, warnings, gpus int
	for i, path := range fleetFiles() {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		one := decodeMerged(t, string(data))
		for _, f := range one.Findings {
			want = append(want, fleetRuns[i].name+" "+f.Rule+" "+f.Object.Kind+"/"+f.Object.Name+" "+f.Message)
		}
		errors, warnings, gpus = errors+one.Summary.Errors, warnings+one.Summary.Warnings, gpus+one.Summary.GPUNodes
	}
	r := drv(t, append([]string{"report", "merge", "-o", "json"}, fleetFiles()...)...)
	if r.code != exitFindings {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := decodeMerged(t, r.stdout)
	var got, skew []string
	for _, f := range m.Findings {
		if f.Rule == "DRV050" {
			skew = append(skew, f.Message)
			continue
		}
		got = append(got, f.Cluster+" "+f.Rule+" "+f.Object.Kind+"/"+f.Object.Name+" "+f.Message)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantSkew := []string{
		"the fleet's clusters run 2 GPU Operator releases: v26.3.1 (ap-1); v26.7.0 (us-1)",
		"the fleet's clusters run 2 driver branches: 535+550 (eu-1); 550 (ap-1, us-1)",
	}
	slices.Sort(skew)
	if !slices.Equal(skew, wantSkew) {
		t.Errorf("DRV050: %q, want %q", skew, wantSkew)
	}
	if m.Summary.Errors != errors || m.Summary.Warnings != warnings+2 || m.Summary.GPUNodes != gpus || len(m.Clusters) != 3 {
		t.Errorf("summary %+v, %d clusters; want %d errors, %d warnings, %d GPU nodes", m.Summary, len(m.Clusters), errors, warnings+2, gpus)
	}

	// A merged result merges again with another cluster's.
	dir := t.TempDir()
	two := filepath.Join(dir, "two.json")
	writeFile(t, two, drv(t, append([]string{"report", "merge", "-o", "json"}, fleetFiles()[:2]...)...).stdout)
	again := drv(t, "report", "merge", "-o", "json", two, fleetFiles()[2])
	if m2 := decodeMerged(t, again.stdout); again.code != exitFindings || len(m2.Clusters) != 3 || len(m2.Findings) != len(m.Findings) {
		t.Errorf("merged twice: exit %d, %d clusters, %d findings (want %d): %s", again.code, len(m2.Clusters), len(m2.Findings), len(m.Findings), again.stderr)
	}

	var releases []string
	for _, c := range m.Clusters {
		releases = append(releases, c.Name+"="+c.OperatorVersion)
	}
	if strings.Join(releases, " ") != "eu-1= us-1=v26.7.0 ap-1=v26.3.1" {
		t.Errorf("clusters: %s", releases)
	}
	gh := drv(t, append([]string{"report", "merge", "-o", "github"}, fleetFiles()...)...)
	if !strings.Contains(gh.stdout, "::eu-1: Node/lab-node-3: no precompiled driver image") {
		t.Errorf("github:\n%s", gh.stdout)
	}

	text := drv(t, append([]string{"report", "merge"}, fleetFiles()...)...)
	if !strings.Contains(text.stdout, "DRV001 missing-driver-image  eu-1: Node/lab-node-3\n") || !strings.Contains(text.stdout, "checked in 3 cluster(s)\n") {
		t.Errorf("text:\n%s", text.stdout)
	}
}

// Nothing passes silently: a file that is not a drvcheck result, one
// that cannot be read, two results of one cluster, and a merge of
// nothing are each exit 2, naming the file or the cluster.
func TestReportMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	sarif := filepath.Join(dir, "drvcheck.sarif")
	writeFile(t, sarif, `{"version": "2.1.0", "runs": []}`)
	text := filepath.Join(dir, "report.txt")
	writeFile(t, text, "0 error(s), 0 warning(s); 0 GPU node(s), 0 object(s) checked\n")
	empty := filepath.Join(dir, "empty.json")
	writeFile(t, empty, "{}")
	eu := fleetFiles()[0]
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", sarif}, sarif + ": not a drvcheck result (-o json)"},
		{[]string{"merge", text}, text + ": not a drvcheck result (-o json)"},
		{[]string{"merge", empty}, empty + ": not a drvcheck result (-o json): no findings and summary"},
		{[]string{"merge", filepath.Join(dir, "missing.json")}, "missing.json: "},
		{[]string{"merge", dir}, empty + ": not a drvcheck result"},
		{[]string{"merge", t.TempDir()}, ": a folder without a .json result"},
		{[]string{"merge", eu, "--context", "eu-1"}, "report merge: --context and --all-contexts say which clusters' report ConfigMaps to read"},
		{[]string{"merge", "configmap=drvcheck"}, "want configmap=NAMESPACE/NAME"},
		{[]string{"merge", eu, "--cluster-label", "env=prod"}, "report: --cluster-label labels one cluster"},
		{[]string{"merge", eu, "--report", "configmap=drvcheck/drvcheck-report"}, "report: --report configmap= writes into one cluster"},
		{[]string{"merge", eu, "--group-by", "env"}, "report merge: --group-by env: cluster eu-1 has no label env"},
		{[]string{"merge", eu, eu}, "cluster eu-1 is in both " + eu + " and " + eu},
		{[]string{"merge"}, "report: want report merge RESULT.json..."},
		{[]string{"merged", eu}, "report: want report merge RESULT.json..."},
	} {
		r := drv(t, append([]string{"report"}, c.args...)...)
		if r.code != exitError || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("report %v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A folder is its .json results (a CI job's downloaded artifacts, one
// folder per cluster): the same fleet as the files named one by one.
func TestReportMergeReadsAFolder(t *testing.T) {
	dir := t.TempDir()
	for i, f := range fleetFiles() {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "drvcheck-result-"+fleetRuns[i].name, "report.json"), string(data))
	}
	byFolder := drv(t, "report", "merge", dir, "-o", "json")
	byFile := drv(t, append([]string{"report", "merge", "-o", "json"}, fleetFiles()...)...)
	if byFolder.code != exitFindings || !slices.Equal(fleetFindingKeys(decodeMerged(t, byFolder.stdout)), fleetFindingKeys(decodeMerged(t, byFile.stdout))) {
		t.Errorf("exit %d %s\n%s", byFolder.code, byFolder.stderr, byFolder.stdout)
	}
}

// editedResult writes a copy of eu-1's result with edit applied to its
// decoded JSON, and returns its path.
func editedResult(t *testing.T, dir, name string, edit func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(fleetFiles()[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	writeFile(t, path, string(out))
	return path
}

// What a hostile user tried on the first version (a helper's attack):
// a result no run writes is refused naming its file, a summary is counted
// anew from the findings, lists written null are lists, and what a folder
// holds is every .json entry in it, links included.
func TestReportMergeTrustsNoResult(t *testing.T) {
	dir := t.TempDir()
	cluster := func(doc map[string]any) map[string]any { return doc["cluster"].(map[string]any) }
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"negative.json", func(d map[string]any) { d["summary"].(map[string]any)["gpu_nodes"] = -5 }, "a summary count of -5"},
		{"escape.json", func(d map[string]any) { cluster(d)["name"] = "eu\x1b[31m-1" }, `cluster name "eu\x1b[31m-1"`},
		{"both.json", func(d map[string]any) { d["clusters"] = []any{cluster(d)} }, "both cluster and clusters"},
		{"other.json", func(d map[string]any) {
			d["findings"].([]any)[0].(map[string]any)["cluster"] = "us-1"
		}, `a finding of cluster "us-1" in the result of cluster "eu-1"`},
		{"label.json", func(d map[string]any) { cluster(d)["labels"] = map[string]any{"env": "pro\nd"} }, "is not a Kubernetes label"},
	} {
		path := editedResult(t, dir, c.name, c.edit)
		r := drv(t, "report", "merge", path)
		if r.code != exitError || !strings.Contains(r.stderr, path+": ") || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d %q, want %q", c.name, r.code, r.stderr, c.want)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}

	// A summary that says 0 errors: the footer counts the findings.
	liar := editedResult(t, dir, "liar.json", func(d map[string]any) {
		d["summary"].(map[string]any)["errors"], d["summary"].(map[string]any)["warnings"] = 0, 0
		cluster(d)["driver_branches"], cluster(d)["stacks"] = nil, nil // null lists are lists
	})
	r := drv(t, "report", "merge", liar, fleetFiles()[1], "-o", "json")
	m := decodeMerged(t, r.stdout)
	errs := 0
	for _, f := range m.Findings {
		if f.Severity == "error" {
			errs++
		}
	}
	if r.code != exitFindings || m.Summary.Errors != errs || errs == 0 {
		t.Errorf("exit %d, summary %d errors, findings %d: %s", r.code, m.Summary.Errors, errs, r.stderr)
	}

	// A folder: a link to a result and an upper-case .JSON are results;
	// a folder reached through a link is walked.
	folder := filepath.Join(dir, "results")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(fleetFiles()[2])
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fleetFiles()[1])
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(folder, "US-1.JSON"), string(data))
	if err := os.Symlink(abs, filepath.Join(folder, "ap-1.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(folder, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{folder, filepath.Join(dir, "linked")} {
		r := drv(t, "report", "merge", arg, "-o", "json")
		if got := decodeMerged(t, r.stdout); len(got.Clusters) != 2 {
			t.Errorf("%s: exit %d, %d clusters: %s", arg, r.code, len(got.Clusters), r.stderr)
		}
	}
	// A dangling link in a folder is an error naming it, not a cluster
	// dropped.
	if err := os.Symlink(filepath.Join(dir, "gone.json"), filepath.Join(folder, "gone.json")); err != nil {
		t.Fatal(err)
	}
	if r := drv(t, "report", "merge", folder); r.code != exitError || !strings.Contains(r.stderr, "gone.json") {
		t.Errorf("dangling link: exit %d %s", r.code, r.stderr)
	}
}

// A fleet result that lacks a cluster says so, and stays partial when it
// is merged again: exit 2, and the metrics say the run could not judge.
func TestReportMergeKeepsUnreadClusters(t *testing.T) {
	dir := t.TempDir()
	partial := filepath.Join(dir, "partial.json")
	r := drv(t, "report", "merge", fleetFiles()[0], "-o", "json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	doc["unread_clusters"] = []string{"down-1"}
	data, _ := json.Marshal(doc)
	writeFile(t, partial, string(data))
	again := drv(t, "report", "merge", partial, fleetFiles()[1], "-o", "prometheus")
	if again.code != exitError || !strings.Contains(again.stdout, "drvcheck_scan_success 0\n") ||
		!strings.Contains(again.stderr, "report merge: the fleet lacks 1 cluster(s) its results could not read (down-1)") {
		t.Errorf("exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
	text := drv(t, "report", "merge", partial)
	if !strings.Contains(text.stdout, "; 1 cluster(s) could not be read: down-1\n") {
		t.Errorf("text: %s", text.stdout)
	}
}
