// Command decodefloor decodes a fleet genfleet wrote and nothing else: the
// floor the speed budget measures drvcheck check against
// (fleetgen.Decode), as a process of its own, so that a benchmark of
// whole processes can pair the two, run after run:
//
//	go run ./hack/genfleet -shape gitops -times 3 /tmp/f3
//	go build -o /tmp/decodefloor ./hack/decodefloor
//	/usr/bin/time -v /tmp/decodefloor /tmp/f3
//	/usr/bin/time -v drvcheck check /tmp/f3/k8s --matrix /tmp/f3/support-matrix.csv -o json
package main

import (
	"fmt"
	"os"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: decodefloor DIR")
		os.Exit(2)
	}
	n, err := fleetgen.Decode(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "decodefloor:", err)
		os.Exit(2)
	}
	if n == 0 {
		fmt.Fprintf(os.Stderr, "decodefloor: no documents in %s/k8s\n", os.Args[1])
		os.Exit(2)
	}
	fmt.Println(n, "documents")
}
