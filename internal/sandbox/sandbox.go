// Package sandbox runs what a repository's own code drives, Helm templates
// and kustomize builds, in a child process of drvcheck, as Argo CD's
// repo-server runs helm and kustomize: a template can loop, recurse or
// allocate without end, and a goroutine cannot be stopped, but a process
// can. The child is drvcheck itself (Serve, the first call of main and of
// the TestMain of every package that renders), started with an empty
// environment (no credentials, no PATH for a git clone), no network (every
// HTTP request is refused), a memory ceiling and a stack limit, and killed
// at its deadline. Its answer is bounded too. Whatever ends it, the parent
// gets one error naming the job and the limit.
package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Func is a job: its request in, its answer out. It runs in the child.
type Func func(req []byte) ([]byte, error)

var (
	mu   sync.Mutex
	jobs = map[string]Func{}
)

// Register makes f the job called name; packages register their jobs in
// init, so that the child, the same binary, knows them too.
func Register(name string, f Func) {
	mu.Lock()
	defer mu.Unlock()
	jobs[name] = f
}

// Limits bound one job.
type Limits struct {
	Timeout time.Duration // wall time, from the start of the child
	Memory  int64         // the child's memory, heap and stacks
	Answer  int64         // the most the answer may hold
}

// DefaultMemory is a job's memory ceiling: no chart or kustomization a
// repository holds needs a tenth of it, and with the parent's own it stays
// under the 1 GiB a run may use.
const DefaultMemory = 384 << 20

// DefaultAnswer bounds an answer when Limits give none.
const DefaultAnswer = 256 << 20

// maxStack keeps a runaway recursion from growing a stack to the
// runtime's 1 GB default before it ends.
const maxStack = 64 << 20

const (
	envJob    = "DRVCHECK_SANDBOX"        // set: this process is a child
	envLimits = "DRVCHECK_SANDBOX_LIMITS" // memory bytes, then each job's timeout in ns

	exitMemory  = 3
	exitTimeout = 4
)

// Serve serves the jobs this process was started for, and exits, when it
// is a sandbox child; otherwise it returns at once. Call it first in main
// and in TestMain.
func Serve() {
	if _, ok := os.LookupEnv(envJob); !ok {
		return
	}
	os.Exit(serve())
}

// serve answers requests, one at a time, until its input ends: a pool's
// child renders many charts in turn; each job is bounded on its own
// (watch), and the child's memory as a whole.
func serve() int {
	mem, timeout := childLimits()
	confine(mem, timeout)
	r := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	// The answers' channel is this process's stdout, and only serve
	// writes it: a library that prints (a warning, a debug line) prints
	// to stderr, which the parent reads only to say why a child ended,
	// instead of into the frames.
	os.Stdout = os.Stderr
	m := newMeter()
	for {
		name, req, err := readRequest(r)
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			return 1
		}
		jobStart.Store(time.Now().UnixNano())
		answer, err := runJob(name, req)
		jobStart.Store(0)
		if err != nil {
			answer = []byte(err.Error())
		}
		giveBack(m) // the job's garbage, before the parent reads the answer
		if writeAnswer(w, err == nil, answer) != nil {
			return 1
		}
		giveBack(m) // the answer (dead here), before the child waits
	}
}

// idleMemory is what a child may hold between jobs.
const idleMemory = 64 << 20

// giveBack returns to the system what a large job left, before the child
// waits for the next: a child holding its last render's peak, hundreds of
// megabytes, while the parent grows, took a run past 1 GiB that one child
// per render kept under it. Small jobs leave little, and pay nothing.
func giveBack(m meter) {
	if m.held() > idleMemory {
		debug.FreeOSMemory()
	}
}

// meter reads the memory the child holds: mapped and not released. The
// watch and the jobs' loop read it at once, each with a meter of its own,
// made once: the watch samples every 2 ms.
type meter []metrics.Sample

func newMeter() meter {
	return meter{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
}

func (m meter) held() int64 {
	metrics.Read(m)
	return int64(m[0].Value.Uint64() - m[1].Value.Uint64())
}

// jobStart is when the child's job began (Unix nanoseconds), 0 between
// jobs: the deadline is each job's.
var jobStart atomic.Int64

func runJob(name string, req []byte) ([]byte, error) {
	mu.Lock()
	job := jobs[name]
	mu.Unlock()
	if job == nil {
		return nil, fmt.Errorf("no job %q in this binary", name)
	}
	return job(req)
}

func childLimits() (int64, time.Duration) {
	memText, timeText, _ := strings.Cut(os.Getenv(envLimits), ",")
	mem, _ := strconv.ParseInt(memText, 10, 64)
	ns, _ := strconv.ParseInt(timeText, 10, 64)
	if mem <= 0 {
		mem = DefaultMemory
	}
	return mem, time.Duration(ns)
}

// confine sets the child's limits: no request leaves it, its stack and
// memory are bounded, and it ends by itself at its deadline should the
// parent be gone.
func confine(mem int64, timeout time.Duration) {
	refuse := roundTripper(func(r *http.Request) (*http.Response, error) {
		return nil, fmt.Errorf("%s %s: drvcheck renders without the network", r.Method, r.URL.Redacted())
	})
	http.DefaultTransport = refuse
	http.DefaultClient = &http.Client{Transport: refuse}
	debug.SetMaxStack(maxStack)
	debug.SetMemoryLimit(mem * 3 / 4)
	limitData(mem)
	go watch(mem, timeout)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// watch ends the child once it holds more than mem bytes, or when a job
// has run past its timeout (with a second's grace: the parent's own
// deadline names it first). It samples often: a template can allocate
// hundreds of megabytes a second.
func watch(mem int64, timeout time.Duration) {
	m := newMeter()
	for {
		if m.held() > mem {
			os.Exit(exitMemory)
		}
		if start := jobStart.Load(); timeout > 0 && start != 0 && time.Since(time.Unix(0, start)) > timeout+time.Second {
			os.Exit(exitTimeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Run runs the job called name on req in a child process of its own
// within lim, and returns its answer. what names the job's input in
// errors (a chart's Chart.yaml, a kustomization file). A run with many
// jobs uses a Pool.
func Run(ctx context.Context, what, name string, req []byte, lim Limits) ([]byte, error) {
	p := NewPool(1, lim)
	defer p.Close()
	return p.Run(ctx, what, name, req)
}

// ended says why a child that did not answer ended, from how it exited
// and what it printed.
func ended(st *os.ProcessState, stderr string, lim Limits) string {
	switch st.ExitCode() {
	case exitMemory:
		return fmt.Sprintf("used more than %s of memory, the most a render may", size(lim.Memory))
	case exitTimeout:
		return fmt.Sprintf("not done after %s (--render-timeout, --timeout)", lim.Timeout)
	}
	switch {
	case strings.Contains(stderr, "stack exceeds"):
		return "its templates recurse without end (the sandbox's stack limit)"
	case strings.Contains(stderr, "out of memory"):
		return fmt.Sprintf("used more than %s of memory, the most a render may", size(lim.Memory))
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if first == "" {
		return fmt.Sprintf("the sandbox ended: %v", st)
	}
	return fmt.Sprintf("the sandbox ended: %v: %s", st, first)
}

// limited keeps the first n bytes written to it and drops the rest: a
// crashing child's trace can be long. The copy of the child's stderr
// writes to it while the parent reads it, job by job.
type limited struct {
	mu sync.Mutex
	w  bytes.Buffer
	n  int
}

func (l *limited) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limited) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func (l *limited) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Reset()
}

func size(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }
