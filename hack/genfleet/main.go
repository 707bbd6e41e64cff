// Command genfleet writes a synthetic GPU fleet of one of the benchmark
// shapes (see internal/fleetgen) for measuring drvcheck by hand:
//
//	go run ./hack/genfleet -shape capacity /tmp/fleet
//	drvcheck check /tmp/fleet/k8s --matrix /tmp/fleet/support-matrix.csv
//	go run ./hack/genfleet -apps 2000 /tmp/apps   # renders: a chart, 2,000 Applications
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

func main() {
	var names []string
	for _, s := range fleetgen.Shapes {
		names = append(names, s.Name)
	}
	names = append(names, fleetgen.CapacityFixed.Name)
	shape := flag.String("shape", fleetgen.Target.Name, "the fleet's shape: "+strings.Join(names, ", "))
	nodes := flag.Int("nodes", 0, "number of GPU nodes (0: the shape's)")
	workloads := flag.Int("workloads", 0, "number of workloads (0: the shape's)")
	pdbs := flag.Int("pdbs", 0, "number of PodDisruptionBudgets (0: the shape's)")
	scale := flag.Int("scale", 1, "generate the shape at 1/scale of its size")
	times := flag.Int("times", 1, "generate the shape at this many times its size, as make bench grows it")
	apps := flag.Int("apps", 0, "write instead a local chart and this many Argo CD Applications of it")
	templates := flag.Int("templates", 50, "the chart's templates, with -apps")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genfleet [flags] DIR")
		os.Exit(2)
	}
	if *apps > 0 {
		if err := fleetgen.WriteApps(flag.Arg(0), *apps, *templates); err != nil {
			fmt.Fprintln(os.Stderr, "genfleet:", err)
			os.Exit(2)
		}
		return
	}
	s, ok := fleetgen.Shape(*shape)
	if !ok {
		fmt.Fprintf(os.Stderr, "genfleet: no shape %q (%s)\n", *shape, strings.Join(names, ", "))
		os.Exit(2)
	}
	s = s.Scaled(max(1, *scale)).Times(max(1, *times))
	for _, set := range []struct{ flag, into *int }{{nodes, &s.Nodes}, {workloads, &s.Workloads}, {pdbs, &s.PDBs}} {
		if *set.flag > 0 {
			*set.into = *set.flag
		}
	}
	matrix, err := fleetgen.Write(flag.Arg(0), s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfleet:", err)
		os.Exit(2)
	}
	fmt.Println(matrix)
}
