package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is the first ```sh block of the README section headed
// heading.
func readmeBlock(t *testing.T, readme, heading string) string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("README.md's %q has no sh block", heading)
	}
	return m[1]
}

// TestReadmeShellOrder runs the README's Quick start and "Use it with
// your agent" as a reader pastes them into one shell, in both orders, in
// a fresh copy of the checkout's examples with no network: every command
// succeeds, and "Use it" wires Claude Code into a fresh project of its
// own (not the Quick start's), where the guard blocks `rm -rf /` as the
// README shows. `go build` and `go install` are a stand-in `go` that
// copies quiver, built once here.
func TestReadmeShellOrder(t *testing.T) {
	t.Parallel() // its own folders; builds quiver once
	if testing.Short() {
		t.Skip("builds quiver")
	}
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	quick, useIt := readmeBlock(t, readme, "Quick start"), readmeBlock(t, readme, "Use it with your agent")
	const deny = `"permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed by acme/guard"`
	if !strings.Contains(readme, deny) {
		t.Fatalf("README.md no longer shows Claude's deny (%s)", deny)
	}

	built := quiverBinary(t)
	goShim := `#!/bin/sh
[ -f cmd/quiver/main.go ] || { echo "go: cannot find ./cmd/quiver from $PWD" >&2; exit 1; }
case "$*" in
"build -o quiver ./cmd/quiver") cp "$BUILT" quiver ;;
"install ./cmd/quiver ./cmd/quiver-git") mkdir -p "$GOPATH/bin" && cp "$BUILT" "$GOPATH/bin/quiver" ;; # the README's steps fetch nothing from git
"env GOPATH") echo "$GOPATH" ;;
*) echo "go $*: not in the README" >&2; exit 2 ;;
esac
`
	for _, order := range []struct {
		name  string
		first string
		then  string
	}{{"quick start, then use it", quick, useIt}, {"use it, then quick start", useIt, quick}} {
		t.Run(order.name, func(t *testing.T) {
			root := t.TempDir()
			checkout, tmp, home, gopath, bin := filepath.Join(root, "checkout"), filepath.Join(root, "tmp"), filepath.Join(root, "home"), filepath.Join(root, "gopath"), filepath.Join(root, "bin")
			for _, d := range []string{tmp, home, bin} {
				os.MkdirAll(d, 0o755)
			}
			for _, dir := range []string{"testdata/plugins/guard", "testdata/marketplace"} {
				os.MkdirAll(filepath.Dir(filepath.Join(checkout, dir)), 0o755)
				if out, err := exec.Command("cp", "-R", filepath.Join("../..", dir), filepath.Join(checkout, dir)).CombinedOutput(); err != nil {
					t.Fatalf("cp %s: %v\n%s", dir, err, out)
				}
			}
			writeFile(t, filepath.Join(checkout, "cmd", "quiver", "main.go"), "package main\n")
			writeFile(t, filepath.Join(bin, "go"), goShim)
			os.Chmod(filepath.Join(bin, "go"), 0o755)
			// One shell, as a reader pastes the blocks: no cd in
			// between (the failing README's "Use it" left the shell in
			// its project, where the Quick start finds no ./quiver).
			script := "set -e\ncd " + checkout + "\n" + order.first + "\n"
			if order.first == quick {
				script += "echo \"QUICK_START_PROJECT=$QUIVER_PROJECT_DIR\"\n"
			}
			script += order.then + "\n"
			if order.then == quick {
				script += "echo \"QUICK_START_PROJECT=$QUIVER_PROJECT_DIR\"\n"
			}
			// Claude Code started in the project it was wired into runs
			// quiver's entry there, with the shell's environment.
			script += `for f in $(find "$TMPDIR" -path '*/.claude/settings.json'); do
  d=${f%/.claude/settings.json}
  echo "WIRED=$d"
  (cd "$d" && printf '{"session_id":"s1","cwd":"%s","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' "$d" | CLAUDE_PROJECT_DIR="$d" quiver hook run --format claude before_tool_call)
  echo
done
`
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = checkout
			var env []string
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "QUIVER_") || k == "GITHUB_TOKEN" || k == "PATH" || k == "HOME" || k == "TMPDIR" || strings.HasPrefix(k, "CLAUDE") {
					continue
				}
				env = append(env, kv)
			}
			cmd.Env = append(env, "HOME="+home, "TMPDIR="+tmp, "GOPATH="+gopath, "BUILT="+built,
				"PATH="+bin+":"+filepath.Join(gopath, "bin")+":/usr/local/bin:/usr/bin:/bin",
				"QUIVER_GIT_BASE=http://127.0.0.1:9", "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the README's commands failed in this order: %v\n%s", err, out)
			}
			var wired []string
			quickProject := ""
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(line, "WIRED="); ok {
					wired = append(wired, v)
				}
				if v, ok := strings.CutPrefix(line, "QUICK_START_PROJECT="); ok {
					quickProject = v
				}
			}
			if len(wired) != 1 {
				t.Fatalf("Claude Code was wired in %d projects, want 1 (%q)\n%s", len(wired), wired, out)
			}
			if wired[0] == quickProject {
				t.Errorf("\"Use it\" wired the Quick start's scratch project %s, not a fresh one\n%s", wired[0], out)
			}
			if !strings.Contains(string(out), deny) {
				t.Errorf("the guard did not block rm -rf / in the wired project as the README shows\n%s", out)
			}
		})
	}
}
