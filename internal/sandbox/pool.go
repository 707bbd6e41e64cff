package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// Pool runs jobs in up to size children at once, each started once and
// kept for the jobs that follow: a child's start (this binary, its
// packages' init) was most of a small chart's render, and a repository of
// 2,000 Argo CD Applications renders a chart 2,000 times. Every job keeps
// the bounds of Limits: its own timeout, the child's memory ceiling, its
// answer's size, no network and no environment. A child that breaks one
// is killed, and the next job starts another.
type Pool struct {
	lim   Limits
	slots chan *child // a nil slot starts a child when it is taken
}

// NewPool makes a pool of at most size children; none starts before a job
// needs it.
func NewPool(size int, lim Limits) *Pool {
	if lim.Memory <= 0 {
		lim.Memory = DefaultMemory
	}
	if lim.Answer <= 0 {
		lim.Answer = DefaultAnswer
	}
	p := &Pool{lim: lim, slots: make(chan *child, max(size, 1))}
	for range cap(p.slots) {
		p.slots <- nil
	}
	return p
}

// Run runs the job called name on req in one of the pool's children and
// returns its answer. what names the job's input in errors (a chart's
// Chart.yaml, a kustomization file).
func (p *Pool) Run(ctx context.Context, what, name string, req []byte) ([]byte, error) {
	if _, child := os.LookupEnv(envJob); child {
		return nil, fmt.Errorf("%s: a sandbox child cannot start another", what)
	}
	var c *child
	select {
	case c = <-p.slots:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	defer func() { p.slots <- c }()
	if c == nil {
		var err error
		if c, err = startChild(p.lim); err != nil {
			return nil, fmt.Errorf("%s: cannot start the sandbox: %w", what, err)
		}
	}
	out, err, keep := c.do(ctx, what, name, req, p.lim)
	if !keep {
		c.kill()
		c = nil
	}
	return out, err
}

// Close ends the pool's children once their jobs are done.
func (p *Pool) Close() {
	for range cap(p.slots) {
		if c := <-p.slots; c != nil {
			c.close()
		}
	}
}

// child is a running sandbox process.
type child struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	w      *bufio.Writer
	out    *bufio.Reader
	stderr *limited
	reaped bool
}

func startChild(lim Limits) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// -test.run=^$: a test binary without Serve in its TestMain runs no
	// test as a child; its answer is then malformed, not a fork bomb.
	cmd := exec.Command(self, "-test.run=^$")
	// GODEBUG=disablethp=1 keeps internal/hugepages from marking its block
	// of heap addresses (up to 3 GiB) in the child: freed but still
	// mapped, they were counted in the child's data size before
	// RLIMIT_DATA was set on top of it (limitData), so a template could
	// fill them unrefused and, while the 2 ms watch lagged on a loaded
	// machine, reach 1.5 GiB.
	cmd.Env = []string{envJob + "=1", envLimits + "=" + strconv.FormatInt(lim.Memory, 10) + "," + strconv.FormatInt(int64(lim.Timeout), 10),
		"GODEBUG=disablethp=1"}
	cmd.WaitDelay = time.Second
	c := &child{cmd: cmd, stderr: &limited{n: 64 << 10}}
	cmd.Stderr = c.stderr
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.w, c.out = bufio.NewWriter(c.in), bufio.NewReader(out)
	return c, nil
}

// reply is a job's answer as read from the child.
type reply struct {
	status  byte
	body    []byte
	err     error // the child ended or spoke out of turn
	tooLong bool
}

// do runs one job. keep says whether the child may take another: not
// after it ended, was killed, or answered out of bounds.
func (c *child) do(ctx context.Context, what, name string, req []byte, lim Limits) ([]byte, error, bool) {
	// The run's own deadline (--timeout) may come first: the job's is
	// then the sooner, so that its message says how long it had.
	if dl, ok := ctx.Deadline(); ok && (lim.Timeout <= 0 || time.Until(dl) < lim.Timeout) {
		lim.Timeout = max(time.Until(dl).Round(time.Millisecond), time.Millisecond)
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	c.stderr.reset()
	replies := make(chan reply, 1)
	go func() { replies <- c.exchange(name, req, lim.Answer) }()
	var r reply
	select {
	case r = <-replies:
	case <-ctx.Done():
		c.kill()
		r = <-replies
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: not done after %s (--render-timeout, --timeout)", what, lim.Timeout), false
		}
		return nil, fmt.Errorf("%s: %w", what, ctx.Err()), false
	}
	switch {
	case r.tooLong:
		return nil, fmt.Errorf("%s: rendered more than %s, the most one input may be (--max-file-size)", what, size(lim.Answer)), false
	case r.err != nil:
		c.kill() // it has ended, or it speaks out of turn
		return nil, fmt.Errorf("%s: %s", what, ended(c.cmd.ProcessState, c.stderr.String(), lim)), false
	case r.status == answerErr:
		return nil, fmt.Errorf("%s: %s", what, r.body), true
	case r.status != answerOK:
		return nil, fmt.Errorf("%s: the sandbox's answer is malformed (a test binary without sandbox.Serve in TestMain?)", what), false
	}
	return r.body, nil, true
}

// exchange sends the request and reads the answer, refusing one longer
// than most bytes before reading it.
func (c *child) exchange(name string, req []byte, most int64) reply {
	if err := writeRequest(c.w, name, req); err != nil {
		return reply{err: err}
	}
	st, n, err := readAnswerHead(c.out)
	if err != nil {
		return reply{err: err}
	}
	if n > uint64(most) {
		return reply{tooLong: true}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.out, body); err != nil {
		return reply{err: unexpected(err)}
	}
	return reply{status: st, body: body}
}

// kill ends the child now and reaps it; once is enough.
func (c *child) kill() {
	if c.reaped {
		return
	}
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
	c.reaped = true
}

// close ends the child's input, so that it exits, and reaps it; one that
// does not exit within a second is killed.
func (c *child) close() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}
