package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
