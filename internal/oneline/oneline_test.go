package oneline

import (
	"errors"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode": "plain text, ünïcode",
		"a\nb\r\tc\x1b[31m":   `a\nb\r\tc\x1b[31m`,
		"":                    "",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestError(t *testing.T) {
	if got := Error(errors.New("parse error:\n\tline 3\n  bad")); got != "parse error: line 3 bad" {
		t.Errorf("Error = %q", got)
	}
}

func TestFew(t *testing.T) {
	for _, c := range []struct {
		list []string
		want string
	}{
		{nil, ""},
		{[]string{"a", "b", "c"}, "a; b; c"},
		{[]string{"a", "b", "c", "d", "e"}, "a; b; c and 2 more"},
	} {
		if got := Few(c.list, "; "); got != c.want {
			t.Errorf("Few(%q) = %q, want %q", c.list, got, c.want)
		}
	}
}
