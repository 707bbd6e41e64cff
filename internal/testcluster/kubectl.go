package testcluster

import (
	"bytes"
	"context"
	"os/exec"
)

// Kubectl runs the kubectl on PATH against this cluster as the admin and
// returns its standard output and standard error.
func (c *Cluster) Kubectl(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	path, err := exec.LookPath("kubectl")
	if err != nil {
		return "", "", err
	}
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, path, append([]string{"--kubeconfig=" + c.Kubeconfig}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = c.env()
	err = cmd.Run()
	return out.String(), errOut.String(), err
}
