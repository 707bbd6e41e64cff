package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/report"
	"github.com/drvcheck/drvcheck/internal/snapshot"
)

// runSnapshot writes the nodes of the live cluster (or of the manifests
// under PATH) for check --nodes, where a pull request check cannot reach
// the cluster: every node, or with --gpu-only the GPU nodes alone.
func snapshotCmd(o *options) runFunc {
	file := o.fs.String("file", "", "write to FILE, replaced only once the snapshot is complete (default standard output)")
	gpuOnly := o.fs.Bool("gpu-only", false, "keep only the GPU nodes, marked so: checks then do not judge where pods that ask for no GPU may run")
	return func(ctx context.Context, o *options, args []string) error {
		if args[0] != "nodes" {
			return errors.New("snapshot: " + snapshotWhy)
		}
		return runSnapshot(ctx, o, args[1:], *file, *gpuOnly)
	}
}

const snapshotWhy = "want snapshot nodes [PATH...]; nodes is the one thing it snapshots"

func runSnapshot(ctx context.Context, o *options, paths []string, file string, gpuOnly bool) error {
	inv, err := o.reader(ctx, paths, cluster.Nodes)(false)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	_, gpus, err := snapshot.WriteNodes(&buf, inv.Nodes, gpuOnly)
	if err != nil {
		return err
	}
	if gpus == 0 {
		return fmt.Errorf("snapshot: no GPU nodes (%s=true) among %d nodes; nothing written", nodefacts.GPUPresent, len(inv.Nodes))
	}
	if file == "" {
		_, err = o.env.stdout.Write(buf.Bytes())
		return err
	}
	err = report.ReplaceFile(ctx, file, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
	if err != nil {
		return fmt.Errorf("--file %w", err)
	}
	return nil
}
