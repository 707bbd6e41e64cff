package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

// browser is Debian's chromium, headless, driven through chromedp: the
// HTML report is tested as a person sees it. Without chromium the tests
// skip, unless DRVCHECK_REQUIRE_BROWSER is set (CI sets it).
func browser(t *testing.T) context.Context {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("DRVCHECK_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium not installed (apt-get install chromium)")
		}
		t.Skip("chromium not installed (apt-get install chromium); set DRVCHECK_REQUIRE_BROWSER=1 to fail instead")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // starts the browser
		t.Fatal(err)
	}
	return ctx
}

// report writes drvcheck's -o html of args to a file and returns its URL.
func htmlReport(t *testing.T, args ...string) string {
	t.Helper()
	r := drv(t, append(args, "-o", "html")...)
	if r.code == exitError {
		t.Fatalf("%v: %s", args, r.stderr)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, r.stdout)
	return "file://" + path
}

// htmlReportOf is htmlReport from the built binary: a 5,000-node run in
// the test process would leave it large, and a child's peak RSS starts at
// its parent's (Linux keeps it across the vfork and exec that start it:
// TestStartTouchesNoBlock would read the test's own size).
func htmlReportOf(t *testing.T, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(builtDrvcheck(t), append(args, "-o", "html")...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != exitFindings {
		t.Fatalf("%v: %v: %s", args, err, stderr.String())
	}
	return "file://" + path
}

// shownRows counts the findings' rows a person sees.
const shownRows = `Array.from(document.querySelectorAll('#table tbody tr')).filter(r => r.offsetParent !== null).length`

// pick chooses value in the select id, as a person does.
func pick(id, value string) string {
	return fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event('change')); return e.value })()`, id, value)
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// The fleet of testdata/clusters as a page: three clusters, their driver
// versions as bars, every finding a row; filtered to one rule and one
// cluster, only its rows stay (the page's script runs under its own
// Content-Security-Policy, which lets nothing else load); a header click
// sorts; the page is not blank.
func TestHTMLFleetReport(t *testing.T) {
	ctx := browser(t)
	url := htmlReport(t, append([]string{"report", "merge"}, fleetFiles()...)...)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	csp := eval[string](t, ctx, `document.querySelector('meta[http-equiv="Content-Security-Policy"]').content`)
	clusters := eval[int](t, ctx, `document.querySelectorAll('#clusters tr.cluster').length`)
	bars := eval[int](t, ctx, `document.querySelectorAll('#clusters rect.bar').length`)
	rows := eval[int](t, ctx, shownRows)
	summary := eval[string](t, ctx, `document.getElementById('summary').textContent`)
	eval[string](t, ctx, pick("rule", "DRV001"))
	drv001 := eval[int](t, ctx, shownRows)
	eval[string](t, ctx, pick("cluster", "eu-1"))
	euDRV001 := eval[int](t, ctx, shownRows)
	eval[string](t, ctx, pick("cluster", ""))
	eval[string](t, ctx, pick("rule", ""))
	for range 2 {
		if err := chromedp.Do(ctx, chromedp.Click(`#table thead th:nth-child(2)`)); err != nil {
			t.Fatal(err)
		}
	}
	firstRule := eval[string](t, ctx, `document.querySelector('#table tbody tr').dataset.rule`)

	// The counts are the merged JSON's (TestReportMergeTagsEveryFinding).
	m := decodeMerged(t, drv(t, append([]string{"report", "merge", "-o", "json"}, fleetFiles()...)...).stdout)
	want001, wantEU := 0, 0
	for _, f := range m.Findings {
		if f.Rule == "DRV001" {
			want001++
			if f.Cluster == "eu-1" {
				wantEU++
			}
		}
	}
	if !strings.HasPrefix(csp, "default-src 'none';") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if clusters != 3 || bars < 3 || rows != len(m.Findings) || drv001 != want001 || euDRV001 != wantEU || euDRV001 == 0 {
		t.Errorf("clusters %d, bars %d, rows %d (want %d), DRV001 %d (want %d), eu-1's %d (want %d)", clusters, bars, rows, len(m.Findings), drv001, want001, euDRV001, wantEU)
	}
	if !strings.Contains(summary, fmt.Sprintf("%d error(s)", m.Summary.Errors)) || !strings.Contains(summary, "in 3 cluster(s)") {
		t.Errorf("summary %q", summary)
	}
	if firstRule != "DRV050" { // sorted by rule, descending
		t.Errorf("after two clicks on rule, the first row is %s", firstRule)
	}
	screenshotNotBlank(t, ctx)
}

// The gitops fleet shape at its target size (5,000 nodes, 20,000
// workloads, 5,000 budgets): the page opens in under 2 s and filters.
func TestHTMLOfTheGitopsShape(t *testing.T) {
	if testing.Short() {
		t.Skip("the 5,000-node fleet")
	}
	ctx := browser(t)
	spec, _ := fleetgen.Shape("gitops")
	dir := t.TempDir()
	matrix, err := fleetgen.Write(dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	url := htmlReportOf(t, "check", filepath.Join(dir, "k8s"), "--matrix", matrix)
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	rows := eval[int](t, ctx, shownRows)
	opened := time.Since(start)
	rule := eval[string](t, ctx, `document.querySelector('#rule option:nth-child(2)').value`)
	eval[string](t, ctx, pick("rule", rule))
	filtered := eval[int](t, ctx, shownRows)
	t.Logf("%d findings, %d of %s: opened in %s", rows, filtered, rule, opened.Round(time.Millisecond))
	if rows == 0 || filtered == 0 || filtered >= rows || opened > 2*time.Second {
		t.Errorf("rows %d, %s %d, opened in %s (want under 2s)", rows, rule, filtered, opened)
	}

	// Its rollout: a row per node rolled, each a bar in its round or a
	// dashed one when it never starts.
	roll := htmlReportOf(t, "plan", "--all", "--driver", "550.90.07", filepath.Join(dir, "k8s"), "--matrix", matrix)
	if err := chromedp.Do(ctx, chromedp.Navigate(roll)); err != nil {
		t.Fatal(err)
	}
	nodes := eval[int](t, ctx, `document.querySelectorAll('svg.timeline g.node').length`)
	bars := eval[int](t, ctx, `document.querySelectorAll('svg.timeline rect.bar').length`)
	dashed := eval[int](t, ctx, `document.querySelectorAll('svg.timeline rect.waits').length`)
	if nodes == 0 || bars == 0 || bars+dashed != nodes {
		t.Errorf("timeline: %d nodes, %d bars, %d dashed", nodes, bars, dashed)
	}
}

// screenshotNotBlank fails when the page renders as one colour.
func screenshotNotBlank(t *testing.T, ctx context.Context) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := decodePNG(shot)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	first := img.At(b.Min.X, b.Min.Y)
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			if img.At(x, y) != first {
				differ++
			}
		}
	}
	if differ < 500 {
		t.Errorf("the page is blank: %d of the sampled pixels differ from the corner's", differ)
	}
}

func decodePNG(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }

// plan --all -o html: a timeline per scope with one bar per node that
// starts, in its round, coloured by its outcome; a dashed one per node
// that never starts; what blocks a node marked. The counts are plan
// --all -o json's.
func TestHTMLRolloutTimeline(t *testing.T) {
	ctx := browser(t)
	repo := operatorRegistry(t, "570.86.15-ubuntu22.04")
	args := []string{"plan", "--all", "--driver", "570.86.15", opFile("midrollout"), "--driver-repository", repo, "--cache-dir=" + t.TempDir()}
	var want struct {
		Nodes []struct {
			Node, Outcome string
			Round         int
			Why           []any
		}
	}
	if err := json.Unmarshal([]byte(drv(t, append(args, "-o", "json")...).stdout), &want); err != nil {
		t.Fatal(err)
	}
	started, waits, blocked := 0, 0, 0
	for _, n := range want.Nodes {
		switch {
		case n.Outcome == "skipped" || n.Outcome == "not-rolled":
			continue
		case n.Round > 0:
			started++
		default:
			waits++
		}
		if len(n.Why) > 0 {
			blocked++
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(htmlReport(t, args...))); err != nil {
		t.Fatal(err)
	}
	bars := eval[int](t, ctx, `document.querySelectorAll('svg.timeline rect.bar').length`)
	dashed := eval[int](t, ctx, `document.querySelectorAll('svg.timeline rect.waits').length`)
	marks := eval[int](t, ctx, `document.querySelectorAll('svg.timeline text.blocker').length`)
	verdict := eval[string](t, ctx, `document.getElementById('verdict').textContent`)
	if bars != started || dashed != waits || marks != blocked || started == 0 || verdict == "" {
		t.Errorf("bars %d (want %d), dashed %d (want %d), blockers %d (want %d), verdict %q", bars, started, dashed, waits, marks, blocked, verdict)
	}
	screenshotNotBlank(t, ctx)
}

// mermaidJS is Mermaid's browser build: DRVCHECK_MERMAID (.ci/run fetches
// it once, with npm, into the cache), else the cache's copy; the test
// skips without it unless DRVCHECK_MERMAID is set.
func mermaidJS(t *testing.T) string {
	t.Helper()
	path := os.Getenv("DRVCHECK_MERMAID")
	if path == "" {
		dir, _ := os.UserCacheDir()
		path = filepath.Join(dir, "drvcheck", "mermaid", "12.3.0", "mermaid.min.js")
		if _, err := os.Stat(path); err != nil {
			t.Skip("Mermaid not cached (bash .ci/run fetches it); set DRVCHECK_MERMAID to its mermaid.min.js")
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// The gantt plan --all -o markdown and diff -o markdown draw for a step
// summary is one Mermaid renders: a task per node the rollout reaches,
// as GitHub shows it.
func TestGanttRendersInMermaid(t *testing.T) {
	js := mermaidJS(t)
	ctx := browser(t)
	repo := operatorRegistry(t, "570.86.15-ubuntu22.04")
	for _, args := range [][]string{
		{"plan", "--all", "--driver", "570.86.15", opFile("midrollout"), "--driver-repository", repo, "--cache-dir=" + t.TempDir()},
		{"diff", opFile("change/base.yaml"), opFile("change/driver.yaml"), opFile("change/nodes.yaml"), "--matrix", opFile("change/images.csv")},
	} {
		md := drv(t, append(args, "-o", "markdown")...).stdout
		_, block, ok := strings.Cut(md, "```mermaid\n")
		block, _, closed := strings.Cut(block, "```\n")
		if !ok || !closed {
			t.Fatalf("%s: no mermaid block:\n%s", args[0], md)
		}
		tasks := strings.Count(block, " :done, ") + strings.Count(block, " :crit, ")
		page := filepath.Join(t.TempDir(), "gantt.html")
		writeFile(t, page, `<!doctype html><html><body><script src="file://`+js+`"></script></body></html>`)
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
			t.Fatal(err)
		}
		render := fmt.Sprintf(`(async () => {
			mermaid.initialize({startOnLoad: false});
			const {svg} = await mermaid.render('g', %s);
			const d = new DOMParser().parseFromString(svg, 'image/svg+xml');
			return d.querySelectorAll('rect.task').length;
		})()`, jsString(block))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[int](render, chromedp.EvalAwaitPromise))
		if err != nil || got != tasks || tasks == 0 {
			t.Errorf("%s: Mermaid drew %d task(s) of %d: %v\n%s", args[0], got, tasks, err, block)
		}
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
