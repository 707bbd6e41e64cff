package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/drvcheck/drvcheck/internal/cuda"
	"github.com/drvcheck/drvcheck/internal/render"
	"github.com/drvcheck/drvcheck/policy"
)

// runCompletion prints a completion script for bash, zsh or fish: the
// commands and each command's flags, read from the commands themselves.
func runCompletion(ctx context.Context, o *options, args []string) error {
	return render.Completion(o.env.stdout, args[0], commandFlags(ctx), flagValues())
}

// flagValues are the words a flag's value may be, from where each is
// checked.
func flagValues() map[string][]string {
	return map[string][]string{
		"-o":            render.Formats(),
		"--output":      render.Formats(),
		"--fail-on":     {policy.Error, policy.Warning, "none"},
		"--cuda-compat": {string(cuda.Minor), string(cuda.Strict)},
	}
}

// commandFlags lists each command with its flags, in the commands' order,
// by asking each command for its help with the flag set captured.
func commandFlags(ctx context.Context) []render.Command {
	var out []render.Command
	for _, c := range commands {
		var fs *pflag.FlagSet
		_ = c.exec(ctx, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, flags: &fs}, []string{"--help"})
		cmd := render.Command{Name: c.name, Files: strings.Contains(c.args, "PATH") || strings.Contains(c.args, "DIR")}
		if first, _, _ := strings.Cut(c.args, " "); first != "" && strings.ToLower(first) == first && !strings.HasPrefix(first, "[") {
			cmd.Words = strings.Split(first, "|") // snapshot nodes, completion bash|zsh|fish
		}
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
