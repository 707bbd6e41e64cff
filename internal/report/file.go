package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/drvcheck/drvcheck/internal/fileerr"
)

// ReplaceFile writes path through a temporary file beside it, renamed over
// path once write has succeeded: a reader (node_exporter's textfile
// collector, a git commit of a snapshot) sees the old file or the new one,
// never half of one, and a failed run leaves the old one.
func ReplaceFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	// CreateTemp makes the file private; a report is read by others (a
	// collector running as its own user).
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, fileerr.Reason(err))
	}
	return nil
}
