package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/imageref"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/nodefacts"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/internal/runner"
)

// tagCmd prints the tag (or the reference, or every image) a node needs.
func tagCmd(o *options) runFunc {
	check := o.fs.Bool("check", false, "also say whether the tag exists, and in which of the --matrix and --registry sources (exit 1 when in none)")
	whole := o.fs.Bool("ref", false, "print the whole image reference (repository:tag), under an operator profile")
	images := o.fs.Bool("images", false, "print every image the driver pod pulls, one \"NAME REFERENCE\" line each (driver, driver-manager, gds, gdrcopy), under an operator profile")
	return func(ctx context.Context, o *options, args []string) error {
		return runTag(ctx, o, args[0], args[1:], tagFlags{check: *check, whole: *whole, images: *images})
	}
}

// tagFlags are tag's own flags.
type tagFlags struct{ check, whole, images bool }

func runTag(ctx context.Context, o *options, name string, paths []string, t tagFlags) error {
	e := o.env
	inv, err := nodeInventory(ctx, o, name, paths)
	if err != nil {
		return err
	}
	cfg := o.runnerConfig(nil)
	f, profile, err := runner.NodeFacts(cfg, inv, name)
	if err != nil {
		return err
	}
	if err := tagNotes(e, f, t.whole); err != nil {
		return err
	}
	if t.images {
		return printImages(e, f)
	}
	out := f.Tag
	if t.whole && f.Image.Ref != "" {
		out = f.Image.Ref
	}
	if !t.check {
		return render.Tag(e.stdout, out)
	}
	return checkTag(ctx, e, cfg.WithProfile(profile, f), f.Tag)
}

// printImages prints the driver pod's images on the node: the driver's,
// then the others, each by name; one the inputs leave to the operator's
// environment is printed as unknown, with why on stderr.
func printImages(e *env, f nodefacts.Facts) error {
	if f.Image.Ref == "" {
		return fmt.Errorf("tag --images: node %s: no operator profile among the inputs gives its images (a ClusterPolicy, NVIDIADriver, values, or the driver flags)", f.Name)
	}
	images := [][2]string{{"driver", f.Image.Ref}}
	for _, a := range f.Image.Aux {
		ref := a.Ref
		if ref == "" {
			ref = "unknown"
			fmt.Fprintf(e.stderr, "drvcheck: note: %s\n", a.Unresolved)
		}
		images = append(images, [2]string{a.Name, ref})
	}
	return render.Images(e.stdout, images)
}

// tagNotes refuses a node without a tag and notes on stderr what makes
// its tag moot.
func tagNotes(e *env, f nodefacts.Facts, whole bool) error {
	switch {
	case f.GPU && !f.Image.Managed && f.Image.OwnerError == "":
		return fmt.Errorf("tag: node %s: not managed: %s; the GPU Operator deploys no driver image there", f.Name, f.Image.Reason)
	case f.Image.Digest && whole: // the whole reference is known: --ref prints it
	case f.Image.Digest:
		return fmt.Errorf("tag: node %s: the operator pulls the digest %s, which has no tag", f.Name, f.Image.Ref)
	case f.Tag == "" && f.Image.OwnerError != "":
		return fmt.Errorf("tag: node %s: no tag: %s", f.Name, f.Image.OwnerError)
	case f.Tag == "" && f.Image.Unresolved != "":
		return fmt.Errorf("tag: node %s: no tag: %s", f.Name, f.Image.Unresolved)
	case f.Tag == "":
		return fmt.Errorf("tag: node %s: no tag: %s", f.Name, describeProblems(f.Problems))
	}
	if !f.GPU {
		fmt.Fprintf(e.stderr, "drvcheck: note: node %s is no GPU node (neither %s=true nor an NFD PCI label of an NVIDIA device); the driver flags do not apply to it\n", f.Name, nodefacts.GPUPresent)
	}
	return nil
}

// nodeInventory reads the manifests under paths (the node named name must
// be among them), or without paths that node from the live cluster.
func nodeInventory(ctx context.Context, o *options, name string, paths []string) (*inventory.Inventory, error) {
	if len(paths) == 0 {
		n, err := runner.LiveNode(ctx, o.clusterOptions(), name)
		if err != nil {
			return nil, fmt.Errorf("tag: %w", err)
		}
		// The operator's configuration, which makes the image.
		inv, err := runner.Live(ctx, o.clusterOptions(), cluster.ClusterPolicies, cluster.NVIDIADrivers, cluster.Deployments)(false)
		if err != nil {
			return nil, fmt.Errorf("tag: %w", err)
		}
		inv.Nodes = []*corev1.Node{n}
		return inv, nil
	}
	inv, err := runner.Files(ctx, o.runnerConfig(paths))(false)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(inv.Nodes, func(n *corev1.Node) bool { return n.Name == name }) {
		return nil, fmt.Errorf("tag: node %s not found in %s", name, strings.Join(paths, ", "))
	}
	return inv, nil
}

// checkTag prints whether any configured source has tag (exit 0) or none
// does (exit 1). A source that cannot be read is exit 2, never MISSING.
func checkTag(ctx context.Context, e *env, cfg runner.Config, tag string) error {
	if !cfg.Registry.Configured() {
		return errors.New("tag --check: needs --matrix or --registry to know which driver images exist")
	}
	cat, err := catalog.Read(ctx, cfg.Sources())
	if err == nil {
		cat, err = runner.Confirm(ctx, cfg, cat, []imageref.Ref{{Tag: tag}})
	}
	if err != nil {
		return err
	}
	v := cat.Check(tag)
	if err := render.TagCheck(e.stdout, tag, v, cat.Describe()); err != nil || v.Present {
		return err
	}
	return errFindings
}

func describeProblems(ps []nodefacts.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("label %s is %s", p.Label, p.Reason)
	}
	return strings.Join(parts, ", ")
}
