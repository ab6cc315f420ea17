package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const goHookPrefix = "gohook-"

// Events the generated plugin hooks handle. before_tool_call is left out
// on purpose: the hook run measurements add exactly k hooks for it.
var treeEvents = []string{"after_tool_call", "user_message_send", "agent_stop", "turn_end", "after_tool_call"}

const shHook = "#!/bin/sh\nif [ \"$1\" = hook ]; then echo %s; exit 0; fi\ncat >/dev/null\nexit 0\n"

// runGoHook is the behaviour of a generated Go hook: its name says its
// event (gohook-<event>-<i>).
func runGoHook(base, cmd string) int {
	switch cmd {
	case "hook":
		var event string
		var i int
		fmt.Sscanf(base[len(goHookPrefix):], "%s", &event)
		for j := len(event) - 1; j >= 0; j-- {
			if event[j] == '-' {
				fmt.Sscanf(event[j+1:], "%d", &i)
				event = event[:j]
				break
			}
		}
		fmt.Println(event)
	case "run":
		io.Copy(io.Discard, os.Stdin)
	}
	return 0
}

// genHome writes n plugins into root/plugins: even plugins get sh hooks,
// odd ones Go hooks (hard links to a copy of this binary).
func genHome(root string, n int, goHook string) error {
	for i := range n {
		dir := filepath.Join(root, "plugins", fmt.Sprintf("org%d@plugin%d", i, i))
		for h, event := range treeEvents {
			hooks := filepath.Join(dir, "hooks")
			if err := os.MkdirAll(hooks, 0o755); err != nil {
				return err
			}
			if i%2 == 0 {
				p := filepath.Join(hooks, fmt.Sprintf("hook%d", h))
				if err := os.WriteFile(p, []byte(fmt.Sprintf(shHook, event)), 0o755); err != nil {
					return err
				}
				continue
			}
			p := filepath.Join(hooks, fmt.Sprintf("%s%s-%d", goHookPrefix, event, h))
			if err := os.Link(goHook, p); err != nil {
				return err
			}
		}
		for s := range 3 {
			skill := filepath.Join(dir, "skills", fmt.Sprintf("skill%d", s), "SKILL.md")
			recipe := filepath.Join(dir, "recipes", fmt.Sprintf("group%d", s%2), fmt.Sprintf("recipe%d.md", s))
			for _, p := range []string{skill, recipe} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
			}
			if err := os.WriteFile(skill, []byte(fmt.Sprintf("---\nname: skill%d\ndescription: |-\n  Skill %d of plugin %d.\n  Use it when benchmarking.\nlicense: MIT\n---\n\n# Skill\n\nDo the thing.\n", s, s, i)), 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(recipe, []byte(fmt.Sprintf("---\nname: recipe%d\ndescription: \"Recipe %d\"\narguments: [focus]\n---\nDo {{focus}}.\n", s, s)), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// genMatching writes k sh hooks for before_tool_call into root/hooks.
func genMatching(root string, k int) ([]string, error) {
	dir := filepath.Join(root, "hooks")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for i := range k {
		p := filepath.Join(dir, fmt.Sprintf("match%02d", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf(shHook, "before_tool_call")), 0o755); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// pyHook is the persistent hook of the serve rows: a small guard that does
// a little real work per event (parse the payload, match a pattern on the
// command) and answers both ways, `run` once per process and `serve` a
// line per event (SPEC §14), so one file is measured in both modes.
const pyHook = `
import json
import re
import sys

DANGEROUS = re.compile(r"\brm\s+-[a-zA-Z]*[rf][a-zA-Z]*\s+/|\bgit\s+push\s+.*--force\b|\bmkfs\b")


def check(payload):
    command = (payload.get("tool_input") or {}).get("command") or ""
    if DANGEROUS.search(command):
        return {"blocked": True, "reason": "dangerous command: " + command}
    return {}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "hook":
        print("before_tool_call persistent")
    elif mode == "run":
        print(json.dumps(check(json.load(sys.stdin))))
    elif mode == "serve":
        for line in sys.stdin:
            request = json.loads(line)
            reply = {"id": request["id"], "result": check(request["payload"])}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    else:
        sys.exit("usage: guard hook|run|serve")


main()
`

// genPersistent writes the persistent Python hook as root's only hook. Its
// #! names the interpreter itself, not a shim such as pyenv's (a shell
// script that would add its own start-up to every one-shot run).
func genPersistent(root string) error {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return fmt.Errorf("python3 for the persistent hook: %v", err)
	}
	dir := filepath.Join(root, "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "guard"), []byte("#!"+strings.TrimSpace(string(out))+"\n"+pyHook), 0o755)
}

// buildEmpty builds `func main() {}` with the go command that built
// quiver, the floor of any Go program's start.
func buildEmpty(tmp string) (string, error) {
	return buildSmall(tmp, "empty-go", "package main\n\nfunc main() {}\n")
}

// launcherSource is peakRSS's launcher: `launcher FILE CMD ARGS...` runs
// CMD and writes its ru_maxrss to FILE; small, so that the high-water mark
// a child inherits from it is below any quiver's.
const launcherSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(127)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if err := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%d\n", rss), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(127)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
`

func buildLauncher(tmp string) (string, error) {
	return buildSmall(tmp, "rss-launcher", launcherSource)
}

// buildSmall builds a one-file Go program with the go command that built
// quiver.
func buildSmall(tmp, name, src string) (string, error) {
	dir := filepath.Join(tmp, name+"-src")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, name)
	cmd := exec.Command("go", "build", "-o", bin, "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", name, err, out)
	}
	return bin, nil
}
