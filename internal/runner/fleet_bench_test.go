package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	yaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/fleetgen"
	"github.com/drvcheck/drvcheck/internal/sandbox"
)

var (
	fleetOnce          sync.Once
	fleetDir, fleetMat string
	fleetErr           error
)

// fleet generates the target-size fleet once per test binary.
func fleet(tb testing.TB) (dir, matrix string) {
	tb.Helper()
	fleetOnce.Do(func() {
		fleetDir, fleetErr = os.MkdirTemp("", "drvcheck-fleet-")
		if fleetErr == nil {
			fleetMat, fleetErr = fleetgen.Write(fleetDir, fleetgen.Target)
		}
	})
	if fleetErr != nil {
		tb.Fatal(fleetErr)
	}
	return fleetDir, fleetMat
}

func TestMain(m *testing.M) {
	serveKeeper()   // the test binary is the bench's memory keeper (warmth_test.go)
	sandbox.Serve() // the test binary is the sandbox's child, as drvcheck is
	code := m.Run()
	if fleetDir != "" {
		os.RemoveAll(fleetDir)
	}
	os.Exit(code)
}

// decodeOnly is the floor the speed budget is measured against
// (fleetgen.Decode); decodeV3 is the faster floor of go-yaml v3 decoding
// straight into plain values, reported beside it.
func decodeOnly(dir string) (int, error) { return fleetgen.Decode(dir) }

func decodeV3(dir string) (int, error) { return fleetgen.DecodeWith(dir, decodeFileV3) }

func decodeFileV3(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if v != nil {
			n++
		}
	}
}

// BenchmarkDecodeFleet measures both floors: Kubernetes-style decoding
// (the budget's) and go-yaml v3 straight into plain values.
func BenchmarkDecodeFleet(b *testing.B) {
	dir, _ := fleet(b)
	for _, floor := range []struct {
		name   string
		decode func(string) (int, error)
	}{{"k8s", decodeOnly}, {"yamlv3", decodeV3}} {
		b.Run(floor.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := floor.decode(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheckFleet(b *testing.B) {
	dir, matrix := fleet(b)
	cfg := Config{Paths: []string{filepath.Join(dir, "k8s")}, Registry: config.Registry{Matrix: []string{matrix}}}
	b.ResetTimer()
	for b.Loop() {
		res, err := Check(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary.GPUNodes != fleetgen.Target.Nodes {
			b.Fatalf("%d GPU nodes, want %d", res.Summary.GPUNodes, fleetgen.Target.Nodes)
		}
	}
}
