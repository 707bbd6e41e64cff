package report

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/render"
)

// Target is one --report FORMAT=FILE, or configmap=NS/NAME.
type Target struct {
	Format string
	Path   string // the file; for a ConfigMap, NS/NAME
}

// ConfigMap says whether t is a cluster's ConfigMap rather than a file.
func (t Target) ConfigMap() bool { return t.Format == config.ConfigMapReport }

// Parse reads every --report, so a typo fails before the run.
func Parse(specs []string) ([]Target, error) {
	var out []Target
	for _, r := range specs {
		format, path, ok := strings.Cut(r, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("--report %q: want FORMAT=FILE, e.g. sarif=drvcheck.sarif, or configmap=NS/NAME", r)
		}
		t := Target{format, path}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("--report %q: %w", r, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func (t Target) check() error {
	if t.ConfigMap() {
		_, _, err := t.namespaceName()
		return err
	}
	if !slices.Contains(render.Formats(), t.Format) {
		return fmt.Errorf("format %q is not one of %s, %s", t.Format, strings.Join(render.Formats(), ", "), config.ConfigMapReport)
	}
	return nil
}

// namespaceName splits a ConfigMap target, checking both names as the API
// server would.
func (t Target) namespaceName() (string, string, error) {
	ns, name, ok := strings.Cut(t.Path, "/")
	if !ok {
		return "", "", fmt.Errorf("want configmap=NAMESPACE/NAME, e.g. configmap=drvcheck/drvcheck-report")
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return "", "", fmt.Errorf("namespace %q: %s", ns, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", "", fmt.Errorf("ConfigMap name %q: %s", name, strings.Join(errs, "; "))
	}
	return ns, name, nil
}
