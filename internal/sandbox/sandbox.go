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
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
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
	envJob    = "DRVCHECK_SANDBOX"
	envLimits = "DRVCHECK_SANDBOX_LIMITS" // memory bytes, then timeout in ns

	exitMemory  = 3
	exitTimeout = 4

	answerOK  = 'O'
	answerErr = 'E'
)

// Serve runs the job this process was started for, and exits, when it is
// a sandbox child; otherwise it returns at once. Call it first in main and
// in TestMain.
func Serve() {
	name, ok := os.LookupEnv(envJob)
	if !ok {
		return
	}
	os.Exit(serve(name))
}

func serve(name string) int {
	mem, timeout := childLimits()
	confine(mem, timeout)
	mu.Lock()
	job := jobs[name]
	mu.Unlock()
	w := bufio.NewWriter(os.Stdout)
	if job == nil {
		fmt.Fprintf(w, "%cno job %q in this binary", answerErr, name)
		return flush(w)
	}
	req, err := io.ReadAll(os.Stdin)
	if err == nil {
		var answer []byte
		if answer, err = job(req); err == nil {
			_ = w.WriteByte(answerOK)
			_, _ = w.Write(answer)
			return flush(w)
		}
	}
	fmt.Fprintf(w, "%c%s", answerErr, err)
	return flush(w)
}

// flush sends the answer; one the parent did not take all of is its to
// name (it reads a bounded answer, and kills the child past it).
func flush(w *bufio.Writer) int {
	if w.Flush() != nil {
		return 1
	}
	return 0
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

// watch ends the child once it holds more than mem bytes, or at its
// deadline. It samples often: a template can allocate hundreds of
// megabytes a second.
func watch(mem int64, timeout time.Duration) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout + time.Second)
	}
	for {
		metrics.Read(samples)
		if int64(samples[0].Value.Uint64()-samples[1].Value.Uint64()) > mem {
			os.Exit(exitMemory)
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			os.Exit(exitTimeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Run runs the job called name on req in a child process within lim, and
// returns its answer. what names the job's input in errors (a chart's
// Chart.yaml, a kustomization file).
func Run(ctx context.Context, what, name string, req []byte, lim Limits) ([]byte, error) {
	if _, child := os.LookupEnv(envJob); child {
		return nil, fmt.Errorf("%s: a sandbox child cannot start another", what)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot start the sandbox: %w", what, err)
	}
	if lim.Memory <= 0 {
		lim.Memory = DefaultMemory
	}
	if lim.Answer <= 0 {
		lim.Answer = DefaultAnswer
	}
	// The run's own deadline (--timeout) may come first: the child's is
	// the sooner, so that its message says how long it had.
	if dl, ok := ctx.Deadline(); ok && (lim.Timeout <= 0 || time.Until(dl) < lim.Timeout) {
		lim.Timeout = max(time.Until(dl).Round(time.Millisecond), time.Millisecond)
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	// -test.run=^$: a test binary without Serve in its TestMain runs no
	// test as a child; its answer is then malformed, not a fork bomb.
	cmd := exec.CommandContext(ctx, self, "-test.run=^$")
	cmd.Env = []string{envJob + "=" + name, envLimits + "=" + strconv.FormatInt(lim.Memory, 10) + "," + strconv.FormatInt(int64(lim.Timeout), 10)}
	cmd.Stdin = bytes.NewReader(req)
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 64 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot start the sandbox: %w", what, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: cannot start the sandbox: %w", what, err)
	}
	answer, readErr := io.ReadAll(io.LimitReader(out, lim.Answer+2))
	tooLong := int64(len(answer)) > lim.Answer+1 // the status byte, then the answer
	if tooLong {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case tooLong:
		return nil, fmt.Errorf("%s: rendered more than %s, the most one input may be (--max-file-size)", what, size(lim.Answer))
	case waitErr != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("%s: not done after %s (--render-timeout, --timeout)", what, lim.Timeout)
	case waitErr != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", what, ctx.Err())
	case waitErr != nil:
		return nil, fmt.Errorf("%s: %s", what, ended(waitErr, stderr.String(), lim))
	case readErr != nil:
		return nil, fmt.Errorf("%s: reading the sandbox's answer: %w", what, readErr)
	case len(answer) == 0:
		return nil, fmt.Errorf("%s: the sandbox answered nothing", what)
	case answer[0] == answerErr:
		return nil, fmt.Errorf("%s: %s", what, answer[1:])
	case answer[0] != answerOK:
		return nil, fmt.Errorf("%s: the sandbox's answer is malformed (a test binary without sandbox.Serve in TestMain?)", what)
	}
	return answer[1:], nil
}

// ended says why a child that did not answer ended.
func ended(err error, stderr string, lim Limits) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case exitMemory:
			return fmt.Sprintf("used more than %s of memory, the most a render may", size(lim.Memory))
		case exitTimeout:
			return fmt.Sprintf("not done after %s (--render-timeout, --timeout)", lim.Timeout)
		}
	}
	switch {
	case strings.Contains(stderr, "stack exceeds"):
		return "its templates recurse without end (the sandbox's stack limit)"
	case strings.Contains(stderr, "out of memory"):
		return fmt.Sprintf("used more than %s of memory, the most a render may", size(lim.Memory))
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if first == "" {
		return fmt.Sprintf("the sandbox ended: %v", err)
	}
	return fmt.Sprintf("the sandbox ended: %v: %s", err, first)
}

// limited keeps the first n bytes written to it and drops the rest: a
// crashing child's trace can be long.
type limited struct {
	w *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func size(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }
