package policy

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"

	rules "github.com/drvcheck/drvcheck/rego"

	"github.com/drvcheck/drvcheck/internal/fileerr"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// RulesPackage is where every rule, built-in or custom, defines findings.
const RulesPackage = "drvcheck.rules"

// sources gathers what a run compiles: the built-in modules and the user's
// (with their tests when withTests), and the user's data. custom reports
// whether the user gave modules of their own.
func sources(opt Options, withTests bool) (mods []*ast.Module, custom bool, store storage.Store, err error) {
	if mods, err = builtinModules(withTests); err != nil {
		return nil, false, nil, err
	}
	user, err := userModules(opt.Policies, withTests, opt.FS)
	if err != nil {
		return nil, false, nil, err
	}
	if store, err = dataStore(opt.Data, withTests, opt.FS); err != nil {
		return nil, false, nil, err
	}
	return append(mods, user...), len(user) > 0, store, nil
}

// builtinModules parses the embedded rules; tests are left to Verify.
func builtinModules(withTests bool) ([]*ast.Module, error) {
	var mods []*ast.Module
	err := fs.WalkDir(rules.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isRego(path, withTests) {
			return err
		}
		src, err := fs.ReadFile(rules.FS, path)
		if err != nil {
			return err
		}
		m, err := parseModule("rego/"+path, src)
		if err != nil {
			return err
		}
		mods = append(mods, m)
		return nil
	})
	return mods, err
}

// userModules parses the .rego files under each path (a file or a folder,
// walked recursively). A module outside the drvcheck package tree would
// never be evaluated, so it is an error rather than a silent no-op.
func userModules(paths []string, withTests bool, fsys *repofs.FS) ([]*ast.Module, error) {
	var mods []*ast.Module
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", root, fileerr.Reason(err))
		}
		if !info.IsDir() && !strings.HasSuffix(root, ".rego") {
			return nil, fmt.Errorf("policy %s: not a folder or a .rego file", root)
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !isRego(path, withTests) {
				return err
			}
			src, err := fsys.ReadGiven(path)
			if err != nil {
				return fmt.Errorf("policy %w", err)
			}
			m, err := parseModule(path, src)
			if err != nil {
				return err
			}
			// Tests are never evaluated as rules, so they may live in any package.
			if pkg := packagePath(m); !isTest(path) && pkg != "drvcheck" && !strings.HasPrefix(pkg, "drvcheck.") {
				return fmt.Errorf("%s:%d: package %s is not under %s; drvcheck only evaluates data.%s[_].findings",
					path, m.Package.Location.Row, pkg, RulesPackage, RulesPackage)
			}
			mods = append(mods, m)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return mods, nil
}

func isRego(path string, withTests bool) bool {
	if !strings.HasSuffix(path, ".rego") {
		return false
	}
	return withTests || !isTest(path)
}

func isTest(path string) bool { return strings.HasSuffix(path, "_test.rego") }

func parseModule(name string, src []byte) (*ast.Module, error) {
	m, err := ast.ParseModuleWithOpts(name, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
	if err != nil {
		return nil, oneLine(err)
	}
	if m == nil {
		return nil, fmt.Errorf("%s: empty module", name)
	}
	return m, nil
}

// packagePath renders "package drvcheck.rules.x" as "drvcheck.rules.x".
func packagePath(m *ast.Module) string {
	return strings.TrimPrefix(m.Package.Path.String(), "data.")
}
