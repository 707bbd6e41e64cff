package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/drvcheck/drvcheck/internal/render"
)

// runCompletion prints a completion script for bash, zsh or fish: the
// commands and each command's flags, read from the commands themselves.
func runCompletion(ctx context.Context, e *env, args []string) error {
	o := newBareFlags(e, "completion", "bash|zsh|fish")
	if err := o.parseFlags(args); err != nil {
		return err
	}
	if o.fs.NArg() != 1 {
		return fmt.Errorf("completion: want one shell: bash, zsh or fish")
	}
	return render.Completion(e.stdout, o.fs.Arg(0), commandFlags(ctx))
}

// commandFlags lists each command with its flags, in the commands' order,
// by asking each command for its help with the flag set captured.
func commandFlags(ctx context.Context) []render.Command {
	var out []render.Command
	for _, c := range commands {
		var fs *pflag.FlagSet
		_ = c.run(ctx, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, flags: &fs}, []string{"--help"})
		cmd := render.Command{Name: c.name}
		if fs != nil {
			fs.VisitAll(func(f *pflag.Flag) {
				cmd.Flags = append(cmd.Flags, "--"+f.Name)
				if f.Shorthand != "" {
					cmd.Flags = append(cmd.Flags, "-"+f.Shorthand)
				}
			})
		}
		out = append(out, cmd)
	}
	return out
}
