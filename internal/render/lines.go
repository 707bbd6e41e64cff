package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/policy"
)

// Audit prints one line "<node> MISSING <tag>" per finding that says a
// node's image is missing, in the order given, or the single line OK.
func Audit(w io.Writer, missing []policy.Finding) error {
	if len(missing) == 0 {
		_, err := fmt.Fprintln(w, "OK")
		return err
	}
	var b strings.Builder
	for _, f := range missing {
		if f.Cluster != "" { // a fleet's audit: "CLUSTER: NODE MISSING TAG"
			fmt.Fprintf(&b, "%s: ", oneline.Escape(f.Cluster))
		}
		fmt.Fprintf(&b, "%s MISSING %s\n", oneline.Escape(f.Node), oneline.Escape(f.Tag))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Tag prints the tag a node needs (tag).
func Tag(w io.Writer, tag string) error {
	_, err := fmt.Fprintln(w, tag)
	return err
}

// TagCheck prints, on one line, the tag and whether any source has it
// (tag --check): "TAG PRESENT in SOURCE[, SOURCE]" or "TAG MISSING from
// SOURCES".
func TagCheck(w io.Writer, tag string, v catalog.Verdict, sources string) error {
	var err error
	if v.Present {
		_, err = fmt.Fprintf(w, "%s PRESENT in %s\n", tag, strings.Join(v.Sources, ", "))
	} else {
		_, err = fmt.Fprintf(w, "%s MISSING from %s\n", tag, sources)
	}
	return err
}

// Input prints the input document the rules read (input), as JSON with
// sorted keys.
func Input(w io.Writer, doc map[string]any) error { return writeJSON(w, doc) }

// Version prints drvcheck's version, its commit and OPA's version.
func Version(w io.Writer, version, commit, opa string) error {
	_, err := fmt.Fprintf(w, "drvcheck %s\ncommit %s\nopa %s\n", version, commit, opa)
	return err
}

// Images prints the driver pod's images (tag --images), one "NAME
// REFERENCE" line each.
func Images(w io.Writer, images [][2]string) error {
	bw := bufio.NewWriter(w)
	for _, im := range images {
		fmt.Fprintf(bw, "%s %s\n", im[0], oneline.Escape(im[1]))
	}
	return bw.Flush()
}
