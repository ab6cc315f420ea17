package main

import (
	"os/exec"
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
		return 1 // safefs, proc, timeouts, gitserver: standing alone
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
