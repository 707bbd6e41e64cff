package main

import (
	"context"
	"runtime/debug"

	"github.com/drvcheck/drvcheck/internal/render"
	opaversion "github.com/open-policy-agent/opa/v1/version"
)

// Set by the Makefile with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = ""
	commit  = ""
)

func runVersion(_ context.Context, o *options, _ []string) error {
	v, c := buildVersion()
	return render.Version(o.env.stdout, v, c, opaversion.Version)
}

func buildVersion() (v, c string) {
	v, c = version, commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && c == "" {
				c = s.Value
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	}
	return v, c
}
