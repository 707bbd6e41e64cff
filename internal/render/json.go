package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/drvcheck/drvcheck/internal/exceptions"
	"github.com/drvcheck/drvcheck/internal/fleet"
	"github.com/drvcheck/drvcheck/policy"
)

type jsonReport struct {
	Findings []policy.Finding `json:"findings"`
	// Suppressed lists findings held back by an exception, with the
	// reason; absent when there are none, so the documented shape holds.
	Suppressed []exceptions.Suppressed `json:"suppressed,omitempty"`
	Summary    policy.Summary          `json:"summary"`
	Cluster    *fleet.Cluster          `json:"cluster,omitempty"`
	Clusters   []fleet.Cluster         `json:"clusters,omitempty"`
	Unread     []string                `json:"unread_clusters,omitempty"`
}

// JSON prints the documented shape (README, "JSON output"): sorted findings (never null) and the
// summary, indented by two spaces.
//
// The findings are encoded on every CPU, each part in its place: on 31,250
// findings (17 MB) one encoder, which indents the whole document again
// after encoding it, was 0.4-0.5 s of a run's serial tail
// (docs/performance.md). The bytes are those of json.Encoder with
// SetIndent("", "  "), which TestJSONIsTheEncoders holds.
func JSON(w io.Writer, r Report, _ Options) error {
	out := jsonReport{Suppressed: r.Suppressed, Summary: r.Summary, Cluster: r.Cluster, Clusters: r.Clusters, Unread: r.Unread}
	// The rest of the report, with no findings: findings is its first
	// field, so it begins with them.
	rest, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	rest, ok := bytes.CutPrefix(rest, []byte("{\n  \"findings\": null"))
	if !ok {
		return errors.New("render: the JSON report does not begin with its findings") // jsonReport's first field
	}
	parts, err := findingsJSON(r.Findings)
	if err != nil {
		return err
	}
	parts = append(append([][]byte{[]byte("{\n  \"findings\": ")}, parts...), rest, []byte("\n"))
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// findingsJSON is the findings' array as it appears in the report, at its
// depth, in one part per CPU.
func findingsJSON(fs []policy.Finding) ([][]byte, error) {
	if len(fs) == 0 {
		return [][]byte{[]byte("[]")}, nil
	}
	n := min(runtime.GOMAXPROCS(0), len(fs))
	size := (len(fs) + n - 1) / n
	parts := make([][]byte, 0, n+2)
	parts = append(parts, []byte("[\n"))
	chunks := make([][]byte, (len(fs)+size-1)/size)
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Go(func() {
			chunks[i], errs[i] = findingsPart(fs[i*size:min((i+1)*size, len(fs))], (i+1)*size >= len(fs))
		})
	}
	wg.Wait()
	for i := range chunks {
		if errs[i] != nil {
			return nil, errs[i]
		}
	}
	return append(append(parts, chunks...), []byte("  ]")), nil
}

// findingsPart is fs as elements of the report's findings array; last
// says whether the array ends after them.
func findingsPart(fs []policy.Finding, last bool) ([]byte, error) {
	var buf bytes.Buffer
	for i := range fs {
		b, err := json.MarshalIndent(&fs[i], "    ", "  ")
		if err != nil {
			return nil, err
		}
		buf.WriteString("    ")
		buf.Write(b)
		if i < len(fs)-1 || !last {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}
