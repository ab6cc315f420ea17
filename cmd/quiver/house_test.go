package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportsPointOneWay keeps the house's arrows pointing down (STYLE.md,
// "The house"): cmd -> hooks/* -> discovery -> plugins/* -> the small
// standalone packages. A package never imports one above it.
func TestImportsPointOneWay(t *testing.T) {
	const mod = "github.com/quiver-cli/quiver/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "../../...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	// floor is a package's storey: it may import only lower ones (or
	// packages of its own storey where the floor allows it).
	floor := func(pkg string) int {
		p := strings.TrimPrefix(pkg, mod)
		switch {
		case strings.HasPrefix(p, "cmd/"):
			return 5
		case p == "internal/hooks" || strings.HasPrefix(p, "internal/hooks/"):
			return 4
		case p == "internal/discovery":
			return 3
		case p == "internal/plugins" || strings.HasPrefix(p, "internal/plugins/"):
			return 2
		}
		return 1 // safefs, proc, term, timeouts, lazy, gitserver: standing alone
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, imp := range imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			from, to := floor(pkg), floor(imp)
			if to > from || (to == from && from == 3) {
				t.Errorf("%s imports %s, which stands above it", strings.TrimPrefix(pkg, mod), strings.TrimPrefix(imp, mod))
			}
		}
	}
}

// TestNoRegexpCompiledAtInit keeps package initialisation free of regexp
// compilation in quiver's own code: every agent event starts a process
// that runs every linked package's init, and a regexp such as
// `[a-z]{0,99}` costs a millisecond and a thousand allocations to compile
// (issue 30). Compile at first use (lazy.Regexp) or write a loop;
// TestStartRunsNoCodeOfOurs catches every other kind of work at init.
func TestNoRegexpCompiledAtInit(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{"../../internal", "."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				var eager ast.Node // what runs at init: package-level values, init's body
				switch d := decl.(type) {
				case *ast.GenDecl:
					if d.Tok == token.VAR {
						eager = d
					}
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "init" {
						eager = d.Body
					}
				}
				if eager == nil {
					continue
				}
				ast.Inspect(eager, func(n ast.Node) bool {
					if _, ok := n.(*ast.FuncLit); ok {
						return false // runs when called, not at init
					}
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile") {
							t.Errorf("%s: regexp.%s runs at package initialisation", fset.Position(call.Pos()), sel.Sel.Name)
						}
					}
					return true
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
