package render

import (
	"fmt"
	"io"
	"strings"
)

// Command is one command and its flags, for completion.
type Command struct {
	Name  string
	Flags []string // --matrix, -o, …
}

// Completion prints the completion script of shell (bash, zsh, fish) for
// cmds. zsh reads the bash script through bashcompinit.
func Completion(w io.Writer, shell string, cmds []Command) error {
	var b strings.Builder
	switch shell {
	case "bash":
		bashCompletion(&b, cmds)
	case "zsh":
		b.WriteString("#compdef drvcheck\nautoload -U +X bashcompinit && bashcompinit\n")
		bashCompletion(&b, cmds)
	case "fish":
		fishCompletion(&b, cmds)
	default:
		return fmt.Errorf("completion: shell %q: want bash, zsh or fish", shell)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func bashCompletion(b *strings.Builder, cmds []Command) {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	b.WriteString("# drvcheck completion for bash: source <(drvcheck completion bash)\n")
	b.WriteString("_drvcheck() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n")
	b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(b, "    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", strings.Join(append(names, "help", "--version"), " "))
	b.WriteString("    return\n  fi\n")
	b.WriteString("  case \"${COMP_WORDS[1]}\" in\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "    %s) local flags=%q ;;\n", c.Name, strings.Join(c.Flags, " "))
	}
	fmt.Fprintf(b, "    help) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", strings.Join(names, " "))
	b.WriteString("    *) return ;;\n  esac\n")
	b.WriteString("  if [[ \"$cur\" == -* ]]; then\n")
	b.WriteString("    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n")
	b.WriteString("  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\n")
	b.WriteString("complete -o filenames -F _drvcheck drvcheck\n")
}

func fishCompletion(b *strings.Builder, cmds []Command) {
	b.WriteString("# drvcheck completion for fish: drvcheck completion fish | source\n")
	b.WriteString("complete -c drvcheck -f\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "complete -c drvcheck -n __fish_use_subcommand -a %s\n", c.Name)
	}
	for _, c := range cmds {
		for _, f := range c.Flags {
			if long, ok := strings.CutPrefix(f, "--"); ok {
				fmt.Fprintf(b, "complete -c drvcheck -n '__fish_seen_subcommand_from %s' -l %s\n", c.Name, long)
			} else {
				fmt.Fprintf(b, "complete -c drvcheck -n '__fish_seen_subcommand_from %s' -s %s\n", c.Name, strings.TrimPrefix(f, "-"))
			}
		}
		fmt.Fprintf(b, "complete -c drvcheck -n '__fish_seen_subcommand_from %s' -F\n", c.Name)
	}
}
