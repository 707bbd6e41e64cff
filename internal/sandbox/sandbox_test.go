package sandbox

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Serve()
	os.Exit(m.Run())
}

// The jobs of the tests: each does in the child what a hostile template
// would.
func init() {
	Register("echo", func(req []byte) ([]byte, error) { return req, nil })
	Register("fail", func(req []byte) ([]byte, error) { return nil, errors.New("helm template: " + string(req)) })
	Register("spin", func([]byte) ([]byte, error) {
		for {
			time.Sleep(time.Millisecond)
		}
	})
	Register("grow", func([]byte) ([]byte, error) {
		var keep [][]byte
		for {
			keep = append(keep, make([]byte, 1<<20))
			for _, b := range keep[len(keep)-1:] {
				for i := range b {
					b[i] = 1
				}
			}
		}
	})
	Register("recurse", func(req []byte) ([]byte, error) { return recurse(len(req)), nil })
	Register("flood", func([]byte) ([]byte, error) { return make([]byte, 10<<20), nil })
	Register("get", func(req []byte) ([]byte, error) {
		resp, err := http.Get(string(req))
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		return []byte("fetched"), nil
	})
	Register("env", func([]byte) ([]byte, error) { return []byte(strings.Join(os.Environ(), "\n")), nil })
}

// recurse recurses until n reaches limit, which no test's does: a
// template that includes itself without end.
//
//go:noinline
func recurse(n int) []byte {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == limit {
		return pad[:]
	}
	return append(recurse(n+1), pad[0])
}

var limit = -1

func run(t *testing.T, job, req string, lim Limits) (string, time.Duration, error) {
	t.Helper()
	start := time.Now()
	out, err := Run(context.Background(), "chart/Chart.yaml", job, []byte(req), lim)
	return string(out), time.Since(start), err
}

func TestAnswers(t *testing.T) {
	if out, _, err := run(t, "echo", "hello", Limits{Timeout: 10 * time.Second}); err != nil || out != "hello" {
		t.Fatalf("%q %v", out, err)
	}
	if _, _, err := run(t, "fail", "boom", Limits{}); err == nil || err.Error() != "chart/Chart.yaml: helm template: boom" {
		t.Errorf("a job's error: %v", err)
	}
	if _, _, err := run(t, "nope", "", Limits{}); err == nil || !strings.Contains(err.Error(), `no job "nope"`) {
		t.Errorf("an unknown job: %v", err)
	}
}

// bounds are a job that breaks each bound, and the one line that says so.
var bounds = []struct {
	job  string
	lim  Limits
	want string
}{
	{"spin", Limits{Timeout: 500 * time.Millisecond}, "chart/Chart.yaml: not done after 500ms"},
	{"grow", Limits{Timeout: 20 * time.Second, Memory: 64 << 20}, "chart/Chart.yaml: used more than 64Mi of memory"},
	{"recurse", Limits{Timeout: 20 * time.Second}, "chart/Chart.yaml: its templates recurse without end"},
	{"flood", Limits{Timeout: 20 * time.Second, Answer: 1 << 20}, "chart/Chart.yaml: rendered more than 1Mi"},
}

// Each bound ends the child and is one line naming the input and the
// limit, within about the time given.
func TestBounds(t *testing.T) {
	for _, c := range bounds {
		_, took, err := run(t, c.job, "", c.lim)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line starting %q", c.job, err, c.want)
		}
		if took > 15*time.Second {
			t.Errorf("%s: took %s", c.job, took)
		}
	}
}

// No request leaves the child, and it sees none of the parent's
// environment (credentials, KUBECONFIG, PATH for a git clone).
func TestNoNetworkNoEnvironment(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, _, err := run(t, "get", srv.URL+"/patch.yaml", Limits{Timeout: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "drvcheck renders without the network") || hits.Load() != 0 {
		t.Errorf("%v, %d requests", err, hits.Load())
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "CANARY")
	out, _, err := run(t, "env", "", Limits{Timeout: 10 * time.Second})
	if err != nil || strings.Contains(out, "CANARY") || strings.Contains(out, "PATH=") {
		t.Errorf("the child's environment: %q %v", out, err)
	}
}

// The parent's cancellation ends the child at once.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, "k/kustomization.yaml", "spin", nil, Limits{Timeout: time.Minute})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Errorf("%v after %s", err, time.Since(start))
	}
}

// The run's deadline, sooner than the job's own, is the one its message
// names.
func TestRunDeadlineComesFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := Run(ctx, "k/kustomization.yaml", "spin", nil, Limits{Timeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "k/kustomization.yaml: not done after ") || !strings.Contains(err.Error(), "ms (") {
		t.Errorf("%v", err)
	}
}
