// Package rego embeds drvcheck's built-in Rego rules, their unit tests and
// the data both read. Each rule lives in package drvcheck.rules.<id> as a
// "findings" set and a "meta" object (id, title, severity, help); shared
// helpers are in lib/. data/ holds tables the rules and the Go side share
// (the GPU Operator's upgrade states), loaded under data.drvcheck.
// testdata/lab_input.json is the input document of the bundled lab, exactly
// as `drvcheck input` prints it; the Rego tests read it as
// data.drvcheck.testdata.lab.
package rego

import "embed"

// FS holds every built-in .rego file, tests included, and the data files.
//
//go:embed *.rego lib/*.rego data/*.json testdata/*.json
var FS embed.FS

// LabInput is where testdata/lab_input.json sits in the Rego tests' data.
var LabInput = []string{"drvcheck", "testdata", "lab"}
