// Command genfleet writes a synthetic GPU fleet (see internal/fleetgen) for
// benchmarking drvcheck by hand:
//
//	go run ./hack/genfleet -nodes 5000 -workloads 20000 -pdbs 5000 /tmp/fleet
//	drvcheck check /tmp/fleet/k8s --matrix /tmp/fleet/support-matrix.csv
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

func main() {
	s := fleetgen.Target
	flag.IntVar(&s.Nodes, "nodes", s.Nodes, "number of GPU nodes")
	flag.IntVar(&s.Workloads, "workloads", s.Workloads, "number of workloads")
	flag.IntVar(&s.PDBs, "pdbs", s.PDBs, "number of PodDisruptionBudgets")
	flag.IntVar(&s.PerFile, "per-file", s.PerFile, "objects per file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genfleet [flags] DIR")
		os.Exit(2)
	}
	matrix, err := fleetgen.Write(flag.Arg(0), s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfleet:", err)
		os.Exit(2)
	}
	fmt.Println(matrix)
}
