package fileerr

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReason(t *testing.T) {
	dir := t.TempDir()
	_, err := os.ReadFile(filepath.Join(dir, "none.yaml"))
	if got := Reason(err); got.Error() != "no such file or directory" || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("Reason(%v) = %v", err, got)
	}
	err = os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	if got := Reason(err); got.Error() != "no such file or directory" {
		t.Errorf("Reason(%v) = %v", err, got)
	}
	other := errors.New("other")
	if got := Reason(other); got != other { //nolint:errorlint // the very same error, not one that wraps it
		t.Error("an error that is not a file-system error changed")
	}
}
