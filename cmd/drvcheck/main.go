// Command drvcheck checks GPU clusters on Kubernetes before their driver
// images, workloads or upgrades break: it reads Nodes, Pods, workloads and
// PodDisruptionBudgets from manifests or a cluster, lists the precompiled
// driver image tags that exist, and evaluates Rego rules over them. This
// package only parses the command line; the work is in internal/ and policy/.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	_ "github.com/drvcheck/drvcheck/internal/hugepages" // the heap in huge pages, from the start
	"github.com/drvcheck/drvcheck/internal/memlimit"
	"github.com/drvcheck/drvcheck/internal/oneline"
	"github.com/drvcheck/drvcheck/internal/redact"
	"github.com/drvcheck/drvcheck/internal/sandbox"
	"github.com/spf13/pflag"
)

// Exit codes, as docs/output.md documents them (scripts rely on them).
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// env is what a command may touch, so tests run commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	color          bool // stdout is a terminal and NO_COLOR is unset
	// flags, when set, receives the command's flag set as it is made, so
	// that help and completion read the flags from the commands themselves.
	flags **pflag.FlagSet
	// profile is the command's --profile, started once its flags are
	// parsed and stopped when it returns.
	profile *profiling
}

func main() {
	// A render's child process is this binary too (internal/sandbox).
	sandbox.Serve()
	memlimit.Tune() // GOGC and the memory limit, unless the environment sets them
	// CI cancels with SIGTERM: the run stops and removes its temporary
	// folders. A second signal kills, as without drvcheck's handler.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, color: colorFor(os.Stdout)}
	code := run(ctx, e, os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes one command line and returns its exit code. Every error is
// printed as one line on stderr.
func run(ctx context.Context, e *env, args []string) int {
	switch {
	case len(args) == 2 && args[0] == "help":
		// The command's own usage, on stdout: it was asked for.
		args = []string{args[1], "--help"}
		e = &env{stdin: e.stdin, stdout: e.stdout, stderr: e.stdout}
	case len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		usage(e.stdout)
		if len(args) == 0 {
			return exitError
		}
		return exitOK
	case args[0] == "--version":
		args = []string{"version"}
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.exec(ctx, e, args[1:])
			if e.profile != nil {
				err = errors.Join(err, e.profile.stop())
			}
			return exitCode(e, err)
		}
	}
	fmt.Fprintf(e.stderr, "drvcheck: unknown command %q; run drvcheck help\n", args[0])
	return exitError
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "drvcheck: will a change, or the cluster as it stands, leave a GPU node without its driver image,")
	fmt.Fprintln(w, "put a GPU workload where it cannot run, or block the GPU Operator's driver upgrade?")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %-16s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nRun drvcheck help COMMAND for its flags. Exit codes: 0 clean, 1 findings, 2 errors.")
}

// errFindings signals exit code 1 without a message.
var errFindings = errors.New("findings")

// errHelp signals that --help was printed.
var errHelp = errors.New("help")

func exitCode(e *env, err error) int {
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	}
	fmt.Fprintf(e.stderr, "drvcheck: %s\n", outLine(err.Error()))
	return exitError
}

// outLine is how every error and warning leaves drvcheck: on one line,
// whatever a library put in it, without the control characters a server's
// answer may hold (an escape sequence would drive the terminal or the CI
// log), and without the credentials it may quote (a --registry value, a
// server echoing a header).
func outLine(s string) string {
	return redact.Secrets(oneline.Escape(strings.Join(strings.Fields(s), " ")))
}
