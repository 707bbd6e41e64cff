package plan

import (
	"fmt"
	"regexp"
)

// driverVersion is an NVIDIA driver version: branch.minor[.revision].
var driverVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)?$`)

// CheckVersion rejects a --driver value that is not a driver version.
func CheckVersion(v string) error {
	if !driverVersion.MatchString(v) {
		return fmt.Errorf("--driver %q is not a driver version such as 550.90.07", v)
	}
	return nil
}
