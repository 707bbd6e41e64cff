package integrations

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/security.md maps each promise to the tests that hold it: every test
// it names exists, so that a promise cannot outlive its test.
func TestSecurityDocNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("`(Test[A-Za-z0-9_]+)(/[^`]*)?`").FindAllStringSubmatch(string(doc), -1)
	if len(names) < 10 {
		t.Fatalf("docs/security.md names %d tests; each promise needs its own", len(names))
	}
	var code strings.Builder
	err = filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		code.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.Contains(code.String(), "func "+n[1]+"(t *testing.T)") {
			t.Errorf("docs/security.md names %s, which no test file defines", n[1])
		}
	}
}
