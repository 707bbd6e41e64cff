package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/drvcheck/drvcheck/internal/catalog"
	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/fleetgen"
	"github.com/drvcheck/drvcheck/internal/registry"
	"github.com/drvcheck/drvcheck/internal/registry/registrytest"
)

const (
	fleetTags  = 10000
	fleetNodes = 5000
	fleetRepo  = "nvidia/driver"
)

// regFleet is a registry holding fleetTags driver tags, shared by the tests
// and benchmarks below (pushing 10,000 tags takes a few seconds).
var regFleet struct {
	once sync.Once
	srv  *registrytest.Server
	tags []string
}

// fleetTag is the i-th tag: 20 branches x 500 kernels, ubuntu22.04.
func fleetTag(i int) string {
	return fmt.Sprintf("%d-5.15.0-%d-generic-ubuntu22.04", 500+i%20, i/20)
}

func fleetRegistry(tb testing.TB) *registrytest.Server {
	regFleet.once.Do(func() {
		// The server outlives the test that starts it: it is closed with the process.
		regFleet.srv = registrytest.New(keepAlive{tb})
		for i := range fleetTags {
			regFleet.tags = append(regFleet.tags, fleetTag(i))
		}
		regFleet.srv.Push(tb, fleetRepo, regFleet.tags...)
	})
	if regFleet.srv == nil {
		tb.Fatal("fleet registry failed to start")
	}
	regFleet.srv.Reset()
	return regFleet.srv
}

// keepAlive drops Cleanup, so the shared server is not closed by the first test.
type keepAlive struct{ testing.TB }

func (keepAlive) Cleanup(func()) {}

// writeFleet writes n GPU nodes, one tag each; every 100th node needs a tag
// that no registry has.
func writeFleet(tb testing.TB, n int) string {
	var b strings.Builder
	for i := range n {
		kernel := fmt.Sprintf("5.15.0-%d-generic", (i%fleetTags)/20)
		if i%100 == 99 {
			kernel = fmt.Sprintf("6.99.0-%d-generic", i)
		}
		b.WriteString("---\n" + fleetgen.GPUNode(fmt.Sprintf("node-%05d", i), fmt.Sprint(500+i%20), kernel, "22.04"))
	}
	path := filepath.Join(tb.TempDir(), "nodes.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

type anonymous struct{}

func (anonymous) Resolve(authn.Resource) (authn.Authenticator, error) { return authn.Anonymous, nil }

func fleetConfig(s *registrytest.Server, path string) Config {
	return Config{
		Paths:           []string{path},
		Registry:        config.Registry{Registry: []string{s.Repo(fleetRepo)}, Timeout: config.Duration(30 * time.Second)},
		RegistryOptions: registry.Options{Keychain: anonymous{}},
	}
}

// A fleet of 5,000 nodes against 10,000 tags: one listing (10 pages of
// 1000), no request per node, and exactly the nodes without a tag reported.
func TestFleetOneListing(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes 10,000 tags")
	}
	s := fleetRegistry(t)
	res, err := Check(context.Background(), fleetConfig(s, writeFleet(t, fleetNodes)))
	if err != nil {
		t.Fatal(err)
	}
	if l, p := s.Listings(fleetRepo), s.Pages(fleetRepo); l != 1 || p != fleetTags/1000 {
		t.Errorf("%d listings in %d pages, want 1 in %d", l, p, fleetTags/1000)
	}
	if n := s.Requests(); n > fleetTags/1000+3 {
		t.Errorf("%d requests for %d nodes; want the listing's pages and its handshake only: %v", n, fleetNodes, s.Log())
	}
	if got, want := len(res.Findings), fleetNodes/100; got != want {
		t.Errorf("%d findings, want %d (every 100th node)", got, want)
	}
	for _, i := range []int{0, fleetTags / 2, fleetTags - 1} { // first, middle and last page
		if !res.Catalog.Check(fleetTag(i)).Present {
			t.Errorf("catalog lacks %s, listed on the registry", fleetTag(i))
		}
	}
}

// BenchmarkRegistryCheck runs the whole check (load, list, evaluate) for
// 500 and 5,000 nodes against 10,000 tags. listings/op stays 1 and
// requests/op stays the same for both sizes; ns/node stays flat.
func BenchmarkRegistryCheck(b *testing.B) {
	s := fleetRegistry(b)
	for _, n := range []int{500, fleetNodes} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			cfg := fleetConfig(s, writeFleet(b, n))
			s.Reset()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Check(context.Background(), cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			ops := float64(s.Listings(fleetRepo)) / float64(b.N)
			if ops != 1 {
				b.Fatalf("%.2f listings per run, want 1", ops)
			}
			b.ReportMetric(ops, "listings/op")
			b.ReportMetric(float64(s.Requests())/float64(b.N), "requests/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
}

// BenchmarkTagLookup is the per-node cost alone: one catalog from the
// 10,000-tag listing, then one lookup per node. ns/node is flat from 500 to
// 5,000 nodes because a lookup is a map access, never a scan.
func BenchmarkTagLookup(b *testing.B) {
	s := fleetRegistry(b)
	cat, err := catalog.Read(context.Background(), fleetConfig(s, "").Sources())
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{500, fleetNodes} {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = fleetTag((i * 7) % (2 * fleetTags)) // half present, half not
		}
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			found := 0
			for b.Loop() {
				for _, tag := range tags {
					found += len(cat.Check(tag).Sources)
				}
			}
			if found == 0 {
				b.Fatal("no tag found")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
	if l := s.Listings(fleetRepo); l != 1 {
		b.Fatalf("%d listings, want 1", l)
	}
}
