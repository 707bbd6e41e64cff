package policy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// oneLine renders an OPA error as "FILE:ROW: code: message", adding how many
// more errors there were, so that the CLI can print it on one line.
func oneLine(err error) error {
	var astErrs ast.Errors
	if errors.As(err, &astErrs) && len(astErrs) > 0 {
		return withMore(locate(astErrs[0].Location, astErrs[0].Code, astErrs[0].Message), len(astErrs)-1)
	}
	var astErr *ast.Error
	if errors.As(err, &astErr) {
		return errors.New(locate(astErr.Location, astErr.Code, astErr.Message))
	}
	var tdErr *topdown.Error
	if errors.As(err, &tdErr) {
		return errors.New(locate(tdErr.Location, tdErr.Code, tdErr.Message))
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return errors.New(msg)
}

func locate(loc *ast.Location, code, msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if loc == nil {
		return fmt.Sprintf("%s: %s", code, msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", loc.File, loc.Row, code, msg)
}

func withMore(msg string, more int) error {
	if more > 0 {
		return fmt.Errorf("%s (and %d more)", msg, more)
	}
	return errors.New(msg)
}
