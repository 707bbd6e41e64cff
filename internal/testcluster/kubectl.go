package testcluster

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
)

// KubectlPath is the kubectl that build.sh built from the same Kubernetes
// release as the control plane, so that drain and apply behave as that
// release's do.
func (c *Cluster) KubectlPath() string { return filepath.Join(c.bin, "kubectl") }

// Kubectl runs kubectl against this cluster as the admin and returns its
// standard output and standard error.
func (c *Cluster) Kubectl(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, c.KubectlPath(), append([]string{"--kubeconfig=" + c.Kubeconfig}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = c.env()
	err = cmd.Run()
	return out.String(), errOut.String(), err
}
