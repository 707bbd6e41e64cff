package main

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink is a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README, the changelog, the contributors' guide
// and docs/ points at a file of the repository, and an anchor at a heading
// of the page it names: a section moved or renamed leaves no dead link.
func TestDocLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{} // page -> its headings' anchors
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		anchors[page] = headingAnchors(string(data))
		return anchors[page]
	}
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range proseLines(string(data)) {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target, anchor, _ := strings.Cut(m[1], "#")
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				page := f
				if target != "" {
					page = path.Join(path.Dir(f), target)
					if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(page))); err != nil {
						t.Errorf("%s:%d: %s: no such file %s", f, i+1, m[1], page)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(page, ".md") && !anchorsOf(page)[anchor] {
					t.Errorf("%s:%d: %s: %s has no heading #%s", f, i+1, m[1], page, anchor)
				}
			}
		}
	}
}

// proseLines are the lines of a Markdown text, with those inside fenced
// code blocks blanked (a YAML comment there is no heading, a link no link),
// so that a line's index is still its line number less one.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			in = !in
			lines[i] = ""
		} else if in {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives the headings of a Markdown
// text: the heading's text in lower case, letters, digits, '-' and '_'
// kept, spaces made '-', the rest dropped; a repeated one gets "-1", "-2".
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		h := strings.TrimLeft(l, "#")
		if h == l || !strings.HasPrefix(h, " ") {
			continue
		}
		a := slug(h)
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Operator changes: drvcheck diff":                          "operator-changes-drvcheck-diff",
		"With the GPU Operator's configuration (operator profile)": "with-the-gpu-operators-configuration-operator-profile",
		"Testing policies: `drvcheck verify`":                      "testing-policies-drvcheck-verify",
		"`nodes[].image`":                                          "nodesimage",
		"`cluster` *(cluster)*":                                    "cluster-cluster",
		"Budgets (DRV020-DRV024)":                                  "budgets-drv020-drv024",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
	if a := headingAnchors("# A\n```yaml\n# not a heading\n```\n## A\n"); !a["a"] || !a["a-1"] || a["not-a-heading"] {
		t.Errorf("headingAnchors: %v", a)
	}
}
