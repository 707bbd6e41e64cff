// Package fileerr words file-system errors the way drvcheck's messages do,
// "PATH: reason": the os package's errors repeat the operation and the path
// ("open x.yaml: no such file or directory"), which every caller names
// already, with what the file is for.
package fileerr

import (
	"errors"
	"io/fs"
	"os"
)

// Reason returns err without the operation and path that *fs.PathError and
// *os.LinkError add; other errors come back as they are.
func Reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
