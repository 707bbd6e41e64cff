package registry

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		h    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{" 0 ", 0, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	} {
		got, ok := retryAfter(c.h, now)
		if got != c.want || ok != c.ok {
			t.Errorf("retryAfter(%q) = %s, %v; want %s, %v", c.h, got, ok, c.want, c.ok)
		}
	}
}

func TestPlainAllowed(t *testing.T) {
	insecure := []string{"mirror.corp", "10.1.2.3:5000"}
	for _, c := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:5000", true},
		{"127.9.9.9", true},
		{"localhost:5000", true},
		{"[::1]:5000", true},
		{"mirror.corp:5000", true}, // host alone allows any port
		{"MIRROR.corp", true},
		{"10.1.2.3:5000", true},
		{"10.1.2.3:5001", false}, // host:port allows that port only
		{"192.168.1.1:5000", false},
		{"nvcr.io", false},
	} {
		if got := plainAllowed(c.host, insecure); got != c.want {
			t.Errorf("plainAllowed(%q) = %v, want %v", c.host, got, c.want)
		}
	}
}

// failing is a RoundTripper that must not be reached.
type failing struct{ t *testing.T }

func (f failing) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("request %s reached the network", r.URL)
	return nil, errors.New("unreachable")
}

func TestGuardRefusesPlainHTTPBeforeDialing(t *testing.T) {
	g := &plainHTTPGuard{inner: failing{t}}
	req, _ := http.NewRequest(http.MethodGet, "http://10.1.2.3:5000/v2/", nil)
	_, err := g.RoundTrip(req)
	var pe *plainHTTPError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a refusal", err)
	}
	if r := reason(err); !strings.Contains(r, "pass --insecure-registry 10.1.2.3:5000") {
		t.Errorf("reason %q", r)
	}
}

func TestCacheWriteIsAtomic(t *testing.T) {
	c := &cache{dir: t.TempDir()}
	now := time.Now().UTC().Truncate(time.Second)
	e := cacheEntry{Repository: "nvcr.io/nvidia/driver", Fetched: now, Tags: []string{"a", "b"}}
	if err := c.write(e); err != nil {
		t.Fatal(err)
	}
	e.Tags = []string{"a", "b", "c"}
	if err := c.write(e); err != nil {
		t.Fatal(err)
	}
	got, err := c.read(e.Repository)
	if err != nil || got == nil || !slices.Equal(got.Tags, e.Tags) || !got.Fetched.Equal(now) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, e)
	}
	files, _ := os.ReadDir(filepath.Join(c.dir, "tags"))
	if len(files) != 1 || strings.HasSuffix(files[0].Name(), ".tmp") {
		t.Errorf("cache folder holds %v, want the one entry and no temporary file", files)
	}

	// A torn or foreign file is an error, never a listing.
	write(t, c.path(e.Repository), `{"repository":"nvcr.io/nvidia/dri`)
	if got, err := c.read(e.Repository); err == nil || got != nil {
		t.Errorf("torn file: %+v, %v; want an error", got, err)
	}
	write(t, c.path(e.Repository), `{"repository":"other/repo","tags":["x"]}`)
	if got, err := c.read(e.Repository); err == nil || got != nil {
		t.Errorf("foreign file: %+v, %v; want an error", got, err)
	}
	if got, err := c.read("absent/repo"); err != nil || got != nil {
		t.Errorf("absent entry: %+v, %v; want nothing", got, err)
	}
}

func TestFresh(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		age  time.Duration
		want bool
	}{{0, true}, {59 * time.Minute, true}, {time.Hour, false}, {-30 * time.Second, true}, {-time.Hour, false}} {
		if got := fresh(now.Add(-c.age), now, time.Hour); got != c.want {
			t.Errorf("fresh(age %s) = %v, want %v", c.age, got, c.want)
		}
	}
}

func TestRedact(t *testing.T) {
	in := `Get "https://bot:hunter2@reg.example/v2/x/tags/list?n=1000&token=abc": EOF`
	got := redact(in)
	if strings.Contains(got, "hunter2") || strings.Contains(got, "token=abc") || !strings.Contains(got, "reg.example/v2/x/tags/list") {
		t.Errorf("redact(%q) = %q", in, got)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
