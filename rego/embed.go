// Package rego embeds drvcheck's built-in Rego rules and their unit tests.
// Each rule lives in package drvcheck.rules.<id> as a "findings" set and a
// "meta" object (id, title, severity, help); shared helpers are in lib/.
package rego

import "embed"

// FS holds every built-in .rego file, tests included.
//
//go:embed *.rego lib/*.rego
var FS embed.FS
