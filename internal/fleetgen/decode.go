package fleetgen

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// Decode is the floor the speed budget is measured against: read every
// file of a written fleet and decode every document into plain values,
// the way Kubernetes tooling decodes manifests (apimachinery's YAML reader
// splits the stream, sigs.k8s.io/yaml decodes each document), on as many
// workers as the loader uses, and nothing else. It returns the documents
// decoded.
func Decode(dir string) (int, error) { return DecodeWith(dir, decodeFile) }

// DecodeWith is Decode with another decoder of one file.
func DecodeWith(dir string, decodeFile func(string) (int, error)) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "k8s", "*.yaml"))
	if err != nil {
		return 0, err
	}
	counts := make([]int, len(files))
	errs := make([]error, len(files))
	// Each worker takes the next file itself, as the loader's do
	// (load.parallel): the floor pays no handoff the loader does not.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				counts[i], errs[i] = decodeFile(files[i])
			}
		})
	}
	wg.Wait()
	total := 0
	for i, c := range counts {
		if errs[i] != nil {
			return 0, errs[i]
		}
		total += c
	}
	return total, nil
}

func decodeFile(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	n := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		var v map[string]any
		if err := sigsyaml.Unmarshal(doc, &v); err != nil {
			return n, err
		}
		if v != nil {
			n++
		}
	}
}
