package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Command is one command and its flags, for completion.
type Command struct {
	Name  string
	Flags []string // --matrix, -o, …
	// Words are what its first argument may be (snapshot nodes,
	// completion bash); Files says whether it takes paths.
	Words []string
	Files bool
}

// Completion prints the completion script of shell (bash, zsh, fish) for
// cmds; values are the words a flag's value may be (-o text, --fail-on
// error), by flag. zsh reads the bash script through bashcompinit.
func Completion(w io.Writer, shell string, cmds []Command, values map[string][]string) error {
	var b strings.Builder
	switch shell {
	case "bash":
		bashCompletion(&b, cmds, values)
	case "zsh":
		b.WriteString("#compdef drvcheck\nautoload -U +X bashcompinit && bashcompinit\n")
		bashCompletion(&b, cmds, values)
	case "fish":
		fishCompletion(&b, cmds, values)
	default:
		return fmt.Errorf("completion: shell %q: want bash, zsh or fish", shell)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func bashCompletion(b *strings.Builder, cmds []Command, values map[string][]string) {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	b.WriteString("# drvcheck completion for bash: source <(drvcheck completion bash)\n")
	b.WriteString("_drvcheck() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(b, "    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", strings.Join(append(names, "help", "--version"), " "))
	b.WriteString("    return\n  fi\n")
	// A flag's value: its words, or nothing the shell would guess.
	b.WriteString("  case \"$prev\" in\n")
	for _, flag := range sortedKeys(values) {
		fmt.Fprintf(b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", flag, strings.Join(values[flag], " "))
	}
	b.WriteString("  esac\n")
	b.WriteString("  local flags words files\n")
	b.WriteString("  case \"${COMP_WORDS[1]}\" in\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "    %s) flags=%q words=%q files=%t ;;\n", c.Name, strings.Join(c.Flags, " "), strings.Join(c.Words, " "), c.Files)
	}
	fmt.Fprintf(b, "    help) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", strings.Join(names, " "))
	b.WriteString("    *) return ;;\n  esac\n")
	b.WriteString("  if [[ \"$cur\" == -* ]]; then\n")
	b.WriteString("    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n")
	b.WriteString("  elif [ -n \"$words\" ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n")
	b.WriteString("    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	b.WriteString("  elif [ \"$files\" = true ]; then\n")
	b.WriteString("    COMPREPLY=($(compgen -f -- \"$cur\"))\n")
	b.WriteString("  fi\n}\n")
	b.WriteString("complete -o filenames -F _drvcheck drvcheck\n")
}

// sortedKeys are the flags with values, in order, so that the script is
// the same every time.
func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func fishCompletion(b *strings.Builder, cmds []Command, values map[string][]string) {
	b.WriteString("# drvcheck completion for fish: drvcheck completion fish | source\n")
	b.WriteString("complete -c drvcheck -f\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "complete -c drvcheck -n __fish_use_subcommand -a %s\n", c.Name)
	}
	for _, c := range cmds {
		for _, f := range c.Flags {
			vals := ""
			if v := values[f]; len(v) > 0 {
				vals = fmt.Sprintf(" -xa '%s'", strings.Join(v, " "))
			}
			if long, ok := strings.CutPrefix(f, "--"); ok {
				fmt.Fprintf(b, "complete -c drvcheck -n '__fish_seen_subcommand_from %s' -l %s%s\n", c.Name, long, vals)
			} else {
				fmt.Fprintf(b, "complete -c drvcheck -n '__fish_seen_subcommand_from %s' -s %s%s\n", c.Name, strings.TrimPrefix(f, "-"), vals)
			}
		}
		if len(c.Words) > 0 {
			fmt.Fprintf(b, "complete -c drvcheck -n '__fish_seen_subcommand_from %s' -a '%s'\n", c.Name, strings.Join(c.Words, " "))
		}
		if c.Files {
			fmt.Fprintf(b, "complete -c drvcheck -n '__fish_seen_subcommand_from %s' -F\n", c.Name)
		}
	}
}
