package testcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RequireEnv, when set, turns a missing control plane into a build (and a
// failed build into a test failure) instead of a skip.
const RequireEnv = "DRVCHECK_REQUIRE_CLUSTER"

// errSkip is returned when the binaries are absent and not required.
var errSkip = errors.New("control plane binaries not built; run bash hack/controlplane/build.sh, or set " +
	RequireEnv + "=1 to build them from the test (about ten minutes the first time)")

// binDir returns the folder of the control-plane binaries: the cached one
// when present, else, when required, the one build.sh builds.
func binDir() (string, error) {
	script, err := buildScript()
	if err != nil {
		return "", err
	}
	if out, err := exec.Command("bash", script, "--check").Output(); err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	if os.Getenv(RequireEnv) == "" {
		return "", errSkip
	}
	cmd := exec.Command("bash", script)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %v", script, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildScript finds hack/controlplane/build.sh above the working folder
// (a test runs in its package's folder).
func buildScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "hack", "controlplane", "build.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hack/controlplane/build.sh not found above the working folder")
		}
		dir = parent
	}
}
