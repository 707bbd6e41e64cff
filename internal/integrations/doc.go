// Package integrations holds no code, only the tests of the files users
// wire drvcheck into their pipelines with: action.yml (its shell steps run
// as a GitHub runner would run them), .pre-commit-hooks.yaml (each hook's
// command line run on the lab), .github/workflows and deploy/. Each test
// parses the file as its consumer does and runs what it can run here.
package integrations
