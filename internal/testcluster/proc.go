package testcluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// proc is one control-plane process, logging to a file in the cluster's
// folder.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed
}

func startProc(dir, bin, name string, env []string, args ...string) (*proc, error) {
	p := &proc{name: name, log: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(filepath.Join(bin, name), args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.Env = env
	p.cmd.Dir = dir
	p.cmd.SysProcAttr = procAttr()
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports an error when the process is no longer running.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); log:\n%s", p.name, p.err, p.tail())
	default:
		return nil
	}
}

// stop asks the process to end, then kills it after a grace period.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail returns the last lines of the process's log, for failure messages.
func (p *proc) tail() string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
