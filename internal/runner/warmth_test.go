package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The memory a measured run meets.
//
// The project's machine is a virtual one whose kernel reports the memory it
// frees to the host (virtio-balloon free page reporting), and the host
// takes it back within seconds: 2,000 MB touched again took 0.13 s one
// second after another process freed it, 0.4-0.6 s after two to four
// seconds, 2.5 s after six and 4.7 s after fifteen, about 2 s a gigabyte,
// in the kernel zeroing pages the host must first hand back
// (docs/performance.md). Memory warmed just before a run therefore stays
// warm for the run's first seconds only: a 5,000-node check (3 s, 800 MiB)
// ran on warm memory and a 15,000-node one (10 s, 2.2 GiB) mostly on cold,
// its system time ten times the smaller's, and the growth between the two
// sizes measured the host. A keeper holds the memory warm instead and gives
// it to the run as the run grows, so every run meets warm memory from its
// first page to its last, as on a machine that keeps its memory.

// keepWarmEnv makes the test binary a keeper of that many bytes (TestMain).
const keepWarmEnv = "DRVCHECK_KEEP_WARM"

const (
	// keepChunk is what the keeper maps and gives back at a time.
	keepChunk = 32 << 20
	// keepAhead is the warm memory the keeper leaves free ahead of the
	// run: far more than a run takes between two looks at its size
	// (keepPoll), which are few, for the keeper shares the machine's two
	// CPUs with the run.
	keepAhead = 512 << 20
	keepPoll  = 20 * time.Millisecond
)

// keeper is a process that holds warm memory for one measured run. It is a
// process of its own: memory the test held itself would count in the run's
// peak RSS, as Linux gives a child at least its parent's peak.
type keeper struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// keepWarm starts a keeper of n bytes, waits until it holds them, and
// resets the test's own peak RSS (resetPeak).
func keepWarm(t *testing.T, n int64) *keeper {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), keepWarmEnv+"="+strconv.FormatInt(n, 10))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the memory keeper: %v", err)
	}
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); line != "ready\n" {
		_ = cmd.Wait()
		t.Fatalf("the memory keeper of %d MiB: %q, %v", n>>20, line, err)
	}
	resetPeak(t)
	return &keeper{cmd: cmd, in: in, out: r}
}

// follow gives the memory to the process pid as it grows.
func (k *keeper) follow(t *testing.T, pid int) {
	t.Helper()
	if _, err := fmt.Fprintf(k.in, "%d\n", pid); err != nil {
		t.Fatalf("the memory keeper: %v", err)
	}
}

// stop ends the keeper, which gives back what it still holds, and returns
// the least it held while it followed the run: at 0 it had nothing left to
// give, and what the run took beyond that met whatever memory the machine
// had.
func (k *keeper) stop(t *testing.T) int64 {
	t.Helper()
	k.in.Close()
	var least int64
	_, scanErr := fmt.Fscanf(k.out, "least %d\n", &least)
	if err := k.cmd.Wait(); err != nil {
		t.Fatalf("the memory keeper: %v", err)
	}
	if scanErr != nil {
		t.Fatalf("the memory keeper's last word: %v", scanErr)
	}
	return least
}

// resetPeak returns the test's free memory to the system and resets its
// peak RSS to what it holds now: a child's peak RSS is at least its
// parent's when it starts (Linux keeps the larger as exec replaces the
// memory), and the floor, decoded in the test's process, would otherwise
// count in every check's peak.
func resetPeak(t *testing.T) {
	t.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("resetting the test's peak RSS: %v", err)
	}
}

// serveKeeper runs the test binary as a keeper when keepWarmEnv asks it
// to, and exits.
func serveKeeper() {
	v := os.Getenv(keepWarmEnv)
	if v == "" {
		return
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err == nil {
		err = keep(n, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "memory keeper: %v\n", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// keep holds n bytes of touched memory, says "ready", reads the pid of the
// run to follow, and gives the memory back as the run grows, keepAhead
// ahead of it, until its input closes. Then it says the least it held.
func keep(n int64, in io.Reader, out io.Writer) error {
	var pool [][]byte
	defer func() { release(&pool, 0) }()
	for held := int64(0); held < n; held += keepChunk {
		b, err := touched(keepChunk)
		if err != nil {
			return fmt.Errorf("holding %d MiB: %w", n>>20, err)
		}
		pool = append(pool, b)
	}
	if _, err := fmt.Fprintln(out, "ready"); err != nil {
		return err
	}
	r := bufio.NewReader(in)
	var pid int
	if _, err := fmt.Fscanln(r, &pid); err != nil {
		return fmt.Errorf("reading the pid to follow: %w", err)
	}
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, r)
		close(closed)
	}()
	base := rssOf(pid)
	tick := time.NewTicker(keepPoll)
	defer tick.Stop()
	for {
		if now := rssOf(pid); now >= 0 {
			release(&pool, n-(now-base)-keepAhead)
		}
		select {
		case <-closed:
			// The pool only shrinks: what is left is the least it held.
			_, err := fmt.Fprintf(out, "least %d\n", int64(len(pool))*keepChunk)
			return err
		case <-tick.C:
		}
	}
}

// touched maps n bytes in huge pages, as drvcheck's heap
// (internal/hugepages), and touches every page.
func touched(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	return b, nil
}

// release gives back chunks of the pool until it holds at most keep bytes.
func release(pool *[][]byte, keep int64) {
	for len(*pool) > 0 && int64(len(*pool))*keepChunk > keep {
		last := len(*pool) - 1
		_ = syscall.Munmap((*pool)[last])
		*pool = (*pool)[:last]
	}
}

// rssOf is the resident memory of the process pid, -1 when it cannot be
// read (the process has ended).
func rssOf(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// TestKeeperFollowsTheRun holds the bench's keeper to its promise: it
// holds the memory asked, keepAhead of it free from the start, gives back
// as much as the followed process grows, and says at the end what it
// still held.
func TestKeeperFollowsTheRun(t *testing.T) {
	const n = 768 << 20
	k := keepWarm(t, n)
	stopped := false
	defer func() {
		if !stopped {
			k.stop(t)
		}
	}()
	own := rssOf(k.cmd.Process.Pid) - n // the test binary's own memory
	if own < 0 {
		t.Fatalf("the keeper holds %d MiB before it follows, want %d", (own+n)>>20, n>>20)
	}
	held := func() int64 { return rssOf(k.cmd.Process.Pid) - own }
	k.follow(t, os.Getpid())
	within(t, "the keeper to leave keepAhead free", func() bool { return held() <= n-keepAhead+keepChunk })
	if h := held(); h < n-keepAhead-2*keepChunk {
		t.Fatalf("the keeper gave back %d MiB before the run grew, want %d", (n-h)>>20, keepAhead>>20)
	}
	grown, err := touched(192 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(grown) }()
	within(t, "the keeper to give back what the run took", func() bool { return held() <= n-keepAhead-192<<20+keepChunk })
	want := held()
	stopped = true
	if least := k.stop(t); least < want-keepChunk || least > want+keepChunk {
		t.Fatalf("the keeper says it held %d MiB at the least, but held %d MiB", least>>20, want>>20)
	}
}

// within waits up to two seconds for ok.
func within(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited 2s for %s", what)
		}
	}
}
