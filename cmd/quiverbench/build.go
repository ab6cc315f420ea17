package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// defaultBaseline is the revision measured beside this tree unless
// --baseline says otherwise: main before issue 30's second pass (the git
// helper, CGO_ENABLED=0), so each run shows what that pass changed.
const defaultBaseline = "9b2bf7d"

// buildEnv is how the README installs quiver: without cgo
// (docs/performance.md says why), so the binary measured is the one
// agents run.
func buildEnv() []string {
	return append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
}

// buildQuiver builds quiver, and quiver-git where the tree has it, from
// the module in src (the current one when empty) into dir, and returns
// quiver's path.
func buildQuiver(src, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	pkgs := []string{"./cmd/quiver"}
	root := src
	if root == "" {
		var err error
		if _, root, err = module(); err != nil {
			return "", err
		}
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "quiver-git")); err == nil {
		pkgs = append(pkgs, "./cmd/quiver-git")
	}
	cmd := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = buildEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s in %s: %v\n%s", strings.Join(pkgs, " "), root, err, out)
	}
	return filepath.Join(dir, "quiver"), nil
}

// buildBaseline builds quiver at the git revision rev (a tree extracted
// with git archive, so the work tree is not touched) into tmp.
func buildBaseline(tmp, rev string) (string, error) {
	src := filepath.Join(tmp, "baseline-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	archive := exec.Command("git", "archive", "--format=tar", rev)
	extract := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	extract.Stdin = pipe
	var stderr strings.Builder
	archive.Stderr = &stderr
	if err := extract.Start(); err != nil {
		return "", err
	}
	if err := archive.Run(); err != nil {
		extract.Wait()
		return "", fmt.Errorf("--baseline %s: git archive: %v: %s", rev, err, strings.TrimSpace(stderr.String()))
	}
	if err := extract.Wait(); err != nil {
		return "", fmt.Errorf("--baseline %s: tar: %v", rev, err)
	}
	return buildQuiver(src, filepath.Join(tmp, "baseline"))
}

// fileMiB is the size of a file in MiB.
func fileMiB(path string) (float64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return float64(fi.Size()) / (1 << 20), nil
}

// echoName is the name under which this binary is the floor of the
// serve rows: the least a Go JSON-RPC server can do per request.
const echoName = "quiverbench-echo"

// runEcho answers each JSON-RPC request line on stdin with its params as
// the result, until stdin ends or a shutdown request: a minimal Go server
// over the same pipes as `hook serve`, decoding and encoding each message
// with encoding/json as any Go server would.
func runEcho() int {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(line, &req) == nil {
				if req.Params == nil {
					req.Params = json.RawMessage("null")
				}
				enc.Encode(struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Result  json.RawMessage `json:"result"`
				}{"2.0", req.ID, req.Params})
				out.Flush()
				if req.Method == "shutdown" {
					return 0
				}
			}
		}
		if err != nil {
			return 0
		}
	}
}

// spawnName is the name under which this binary spawns the hooks it is
// given, one after the other, each with the payload it read on stdin: the
// per-hook floor from a fresh process, as quiver's hook run is one.
const spawnName = "quiverbench-spawn"

// runSpawn is spawnAll in a process of its own.
func runSpawn(hooks []string) int {
	body, err := io.ReadAll(os.Stdin)
	if err == nil {
		_, err = spawnAll(hooks, body)()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// module is the path and the folder of the module quiverbench runs in.
func module() (path, dir string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}}\n{{.Dir}}").Output()
	if err != nil {
		return "", "", fmt.Errorf("find the module: %v", err)
	}
	path, dir, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	return path, dir, nil
}

// hookRunFiles are the files of cmd/quiver that implement hook run and
// hook serve.
var hookRunFiles = []string{"hook.go", "hookrun.go"}

// buildLinkFloor builds the start-up floor of any binary that can run
// hook run: a main that imports the packages of this module that
// hookRunFiles import (read from the source, so the list follows it, and
// named in the progress) and does nothing. Their init runs and nothing
// else: no command framework, none of the other commands, none of hook
// run's own code. What a split of quiver into a hook-run binary and the
// rest could reach at best is this floor. The main lives in the module (internal packages can only be
// imported from inside it), added by an overlay: the tree is not written.
func buildLinkFloor(tmp string) (string, error) {
	modPath, root, err := module()
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	var imports []string
	fset := token.NewFileSet()
	for _, name := range hookRunFiles {
		f, err := parser.ParseFile(fset, filepath.Join(root, "cmd", "quiver", name), nil, parser.ImportsOnly)
		if err != nil {
			return "", err
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if strings.HasPrefix(p, modPath+"/") && !seen[p] {
				seen[p] = true
				imports = append(imports, p)
			}
		}
	}
	if len(imports) == 0 {
		return "", fmt.Errorf("no package of %s imported by %v", modPath, hookRunFiles)
	}
	slices.Sort(imports)
	var short []string
	for _, p := range imports {
		short = append(short, strings.TrimPrefix(p, modPath+"/"))
	}
	progress("the link floor imports %s", strings.Join(short, ", "))
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	for _, p := range imports {
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	mainFile := filepath.Join(tmp, "link-floor.go")
	if err := os.WriteFile(mainFile, []byte(src.String()), 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "cmd", "quiverbench", "linkfloor", "main.go"): mainFile}})
	if err != nil {
		return "", err
	}
	overlayFile := filepath.Join(tmp, "link-floor-overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, "link-floor")
	cmd := exec.Command("go", "build", "-overlay", overlayFile, "-o", bin, "./cmd/quiverbench/linkfloor")
	cmd.Dir = root
	cmd.Env = buildEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the link floor: %v\n%s", err, out)
	}
	return bin, nil
}
