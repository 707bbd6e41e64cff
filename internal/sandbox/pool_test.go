package sandbox

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func init() {
	Register("pid", func([]byte) ([]byte, error) { return []byte(strconv.Itoa(os.Getpid())), nil })
	Register("chatty", func(req []byte) ([]byte, error) {
		fmt.Println("a library's warning, on stdout")
		fmt.Fprint(os.Stdout, "\x4f\x00\x00")
		return req, nil
	})
	Register("bloat", func([]byte) ([]byte, error) {
		keep := make([][]byte, 0, 200)
		for range 200 {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
		}
		runtime.KeepAlive(keep)
		return []byte(strconv.Itoa(os.Getpid())), nil
	})
	Register("nap", func(req []byte) ([]byte, error) {
		ms, _ := strconv.Atoi(string(req))
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return []byte(strconv.Itoa(os.Getpid())), nil
	})
}

func poolRun(t *testing.T, p *Pool, job, req string) (string, error) {
	t.Helper()
	out, err := p.Run(context.Background(), "chart/Chart.yaml", job, []byte(req))
	return string(out), err
}

// A pool's child takes job after job; a job's own error leaves it be.
func TestPoolReusesAChild(t *testing.T) {
	p := NewPool(1, Limits{Timeout: 10 * time.Second})
	defer p.Close()
	first, err := poolRun(t, p, "pid", "")
	if err != nil || first == strconv.Itoa(os.Getpid()) {
		t.Fatalf("pid %q, %v", first, err)
	}
	if _, err := poolRun(t, p, "fail", "boom"); err == nil || err.Error() != "chart/Chart.yaml: helm template: boom" {
		t.Errorf("a job's error: %v", err)
	}
	for range 5 {
		if got, err := poolRun(t, p, "pid", ""); err != nil || got != first {
			t.Fatalf("a later job ran in %q (%v), not in the first child %q", got, err, first)
		}
	}
}

// What a job prints on stdout does not reach the answers: the child
// goes on answering in step.
func TestPoolJobsPrintingToStdout(t *testing.T) {
	p := NewPool(1, Limits{Timeout: 10 * time.Second})
	defer p.Close()
	for _, req := range []string{"one", "two", "three"} {
		if got, err := poolRun(t, p, "chatty", req); err != nil || got != req {
			t.Fatalf("answer %q (%v), want %q", got, err, req)
		}
	}
}

// Each job has the whole timeout: jobs that together pass it, each
// within it, all answer from the same child.
func TestPoolTimeoutIsEachJobs(t *testing.T) {
	p := NewPool(1, Limits{Timeout: 600 * time.Millisecond})
	defer p.Close()
	var pids []string
	for range 4 {
		got, err := poolRun(t, p, "nap", "300")
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, got)
	}
	if pids[0] != pids[3] {
		t.Errorf("the jobs ran in %v: one child was meant to take them all", pids)
	}
}

// A job that breaks a bound ends its child with the bound's message; the
// next job gets a new child and answers.
func TestPoolBoundsEachJob(t *testing.T) {
	for _, c := range bounds {
		p := NewPool(1, c.lim)
		before, err := poolRun(t, p, "pid", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := poolRun(t, p, c.job, ""); err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line starting %q", c.job, err, c.want)
		}
		if after, err := poolRun(t, p, "pid", ""); err != nil || after == before {
			t.Errorf("after %s: the next job ran in %q (%v), the killed child was %q", c.job, after, err, before)
		}
		p.Close()
	}
}

// size children take jobs at once, and no more.
func TestPoolRunsSizeAtOnce(t *testing.T) {
	p := NewPool(2, Limits{Timeout: 20 * time.Second})
	defer p.Close()
	var mu sync.Mutex
	pids := map[string]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Go(func() {
			got, err := poolRun(t, p, "nap", "200")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			pids[got]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(pids) != 2 {
		t.Errorf("8 jobs ran in %d children, want 2: %v", len(pids), pids)
	}
	if took := time.Since(start); took < 800*time.Millisecond {
		t.Errorf("8 jobs of 200ms in 2 children took %s: more ran at once", took)
	}
}

// A child gives back what a large job took before it waits for the next:
// idle, it holds little, whatever its last render held.
func TestPoolChildIdlesSmall(t *testing.T) {
	p := NewPool(1, Limits{Timeout: 20 * time.Second})
	defer p.Close()
	if _, err := poolRun(t, p, "bloat", ""); err != nil {
		t.Fatal(err)
	}
	pid, err := poolRun(t, p, "pid", "") // answered once the child is idle again
	if err != nil {
		t.Fatal(err)
	}
	rss := vmRSS(t, pid)
	if rss > 2*idleMemory {
		t.Errorf("the child holds %d MiB after a job of 200 MiB, want it given back", rss>>20)
	}
}

// vmRSS reads a process's resident memory from /proc.
func vmRSS(t *testing.T, pid string) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
