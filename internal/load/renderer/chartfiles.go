package renderer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartloader "helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// loadChart loads the chart in dir as Helm's LoadDir does (.helmignore
// and its defaults, a byte-order mark dropped, irregular files refused),
// but through the run's opener: LoadDir follows every symbolic link, so a
// chart file linked to ~/.aws/credentials would be read and could be
// printed by a template's fail. Here a link is followed only inside the
// repository, a folder linked into itself is read once, and every byte
// counts against the run's limits.
func loadChart(fsys *repofs.FS, dir string) (*chart.Chart, error) {
	rules, err := helmIgnore(fsys, dir)
	if err != nil {
		return nil, err
	}
	c := chartWalk{fsys: fsys, rules: rules, seen: map[string]bool{}}
	if err := c.walk(dir, ""); err != nil {
		return nil, err
	}
	return chartloader.LoadFiles(c.files)
}

func helmIgnore(fsys *repofs.FS, dir string) (*ignore.Rules, error) {
	rules := ignore.Empty()
	data, err := fsys.ReadFile(filepath.Join(dir, ignore.HelmIgnore))
	switch {
	case err == nil:
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ignore.HelmIgnore), err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	rules.AddDefaults()
	return rules, nil
}

// chartWalk gathers a chart's files.
type chartWalk struct {
	fsys  *repofs.FS
	rules *ignore.Rules
	seen  map[string]bool // folders read, resolved: a link loop ends
	files []*archive.BufferedFile
}

// walk reads the folder dir, which is name in the chart ("" at its top).
func (c *chartWalk) walk(dir, name string) error {
	real, err := c.fsys.Resolve(dir)
	if err != nil {
		return err
	}
	if c.seen[real] {
		return nil
	}
	c.seen[real] = true
	entries, err := c.fsys.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p, n := filepath.Join(dir, e.Name()), path.Join(name, e.Name())
		info, err := c.fsys.Stat(p) // a link's target, inside the repository
		if err != nil {
			return err
		}
		if c.rules.Ignore(n, info) {
			continue
		}
		if info.IsDir() {
			if err := c.walk(p, n); err != nil {
				return err
			}
			continue
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: not read: not a regular file (%s)", p, repofs.KindOf(info.Mode()))
		}
		data, err := c.fsys.ReadFile(p)
		if err != nil {
			return err
		}
		c.files = append(c.files, &archive.BufferedFile{Name: n, ModTime: info.ModTime(), Data: bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})})
	}
	return nil
}
