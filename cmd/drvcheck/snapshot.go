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
func runSnapshot(ctx context.Context, e *env, args []string) error {
	o := newBareFlags(e, "snapshot", "nodes [PATH...]")
	file := o.fs.String("file", "", "write to FILE, replaced only once the snapshot is complete (default standard output)")
	gpuOnly := o.fs.Bool("gpu-only", false, "keep only the GPU nodes, marked so: checks then do not judge where pods that ask for no GPU may run")
	o.bind(&o.Loading)
	o.addClusterFlags()
	if err := o.parse(args); err != nil {
		return err
	}
	ctx, cancel := o.deadline(ctx)
	defer cancel()
	if o.fs.NArg() < 1 || o.fs.Arg(0) != "nodes" {
		return errors.New("snapshot: want snapshot nodes [PATH...]; nodes is the one thing it snapshots")
	}
	paths := o.fs.Args()[1:]
	inv, err := reader(ctx, e, o, paths, cluster.Nodes)(false)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	_, gpus, err := snapshot.WriteNodes(&buf, inv.Nodes, *gpuOnly)
	if err != nil {
		return err
	}
	if gpus == 0 {
		return fmt.Errorf("snapshot: no GPU nodes (%s=true) among %d nodes; nothing written", nodefacts.GPUPresent, len(inv.Nodes))
	}
	if *file == "" {
		_, err = e.stdout.Write(buf.Bytes())
		return err
	}
	err = report.ReplaceFile(ctx, *file, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
	if err != nil {
		return fmt.Errorf("--file %w", err)
	}
	return nil
}
