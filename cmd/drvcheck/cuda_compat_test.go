package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}, args)
	return code, out.String(), errOut.String()
}

func TestCUDACompatFlag(t *testing.T) {
	lab := "../../testdata/lab/k8s"
	data := filepath.Join(t.TempDir(), "cuda.yaml")
	if err := os.WriteFile(data, []byte("drvcheck:\n  cuda:\n    images:\n      nvcr.io/nvidia/pytorch:\n        \"24.07\": \"12.5.1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "check", lab, "--cuda-compat", "loose")
	if code != exitError || !strings.Contains(stderr, `--cuda-compat "loose": want minor or strict`) {
		t.Fatalf("loose: exit %d, stderr %q", code, stderr)
	}
	_, stdout, _ := runCLI(t, "check", lab, "--data", data, "-o", "json")
	if strings.Contains(stdout, "DRV012") {
		t.Fatalf("minor (default) found DRV012: %s", stdout)
	}
	code, stdout, _ = runCLI(t, "check", lab, "--data", data, "--cuda-compat", "strict", "-o", "json")
	if code != exitFindings || !strings.Contains(stdout, `"rule": "DRV012"`) {
		t.Fatalf("strict: exit %d, %s", code, stdout)
	}
	conf := filepath.Join(t.TempDir(), ".drvcheck.yaml")
	if err := os.WriteFile(conf, []byte("cuda-compat: strict\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ = runCLI(t, "check", lab, "--data", data, "--config", conf, "-o", "json")
	if !strings.Contains(stdout, `"rule": "DRV012"`) {
		t.Fatalf("cuda-compat from the config file was not applied: %s", stdout)
	}
	_, stdout, _ = runCLI(t, "check", lab, "--data", data, "--config", conf, "--cuda-compat", "minor", "-o", "json")
	if strings.Contains(stdout, "DRV012") {
		t.Fatalf("the flag did not win over the config file: %s", stdout)
	}
}
