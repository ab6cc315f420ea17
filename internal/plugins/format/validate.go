package format

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Finding is one problem plugin validate or doctor reports.
type Finding struct {
	Severity string `json:"severity"` // error, warning or info
	File     string `json:"file,omitempty"`
	Reason   string `json:"reason"`
	Fix      string `json:"fix,omitempty"`
}

// Validate checks the plugin folder dir for everything an author can get
// wrong, without running anything of it (SPEC §9): plugin.yaml, symlinks
// leading out, an empty plugin, files in hooks/ that cannot be hooks, a
// native hook without a #! line, the Claude-format parts (manifest paths,
// each hooks.json and handler, the files commands name), and skills and
// recipes whose frontmatter does not parse or says too little. Hooks
// lists the native hooks that are not disabled, for a caller that also
// runs them (validate --run).
func Validate(dir string) (findings []Finding, hooks []plugins.Item) {
	var out []Finding
	add := func(sev, file, reason, fix string) {
		out = append(out, Finding{Severity: sev, File: file, Reason: reason, Fix: fix})
	}
	rel := func(p string) string {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(r)
	}
	if _, err := plugins.ReadManifest(dir); err != nil {
		add("error", "plugin.yaml", err.Error(), "fix the YAML: name, description, version and homepage are plain strings")
	}
	if err := plugins.CheckSymlinks(dir); err != nil {
		add("error", "", err.Error(), "make the link relative and inside the plugin, or copy the file in; installs refuse such plugins")
	}
	c, err := plugins.ScanDir(dir)
	if err != nil {
		add("error", "", err.Error(), "")
		return out, nil
	}
	if c.Empty() {
		add("error", "", "the plugin carries no hook, skill or recipe", "add hooks/<name>, skills/<name>/SKILL.md or recipes/<name>.md")
	}
	for _, sk := range c.Skipped {
		fix := "chmod +x " + rel(sk.Path)
		if !strings.Contains(sk.Reason, "executable") {
			fix = "rename or move it"
		}
		add("error", rel(sk.Path), "not a hook: "+sk.Reason, fix)
	}
	for _, h := range c.Hooks {
		if h.Disabled {
			add("info", rel(h.Path), "disabled by its .disable suffix: listed, never run", "")
			continue
		}
		if head, err := readHead(h.Path, 4); err != nil {
			add("error", rel(h.Path), err.Error(), "")
			continue
		} else if !strings.HasPrefix(head, "#!") && head != "\x7fELF" && !isMachO(head) {
			add("error", rel(h.Path), "no #! line, so it cannot be executed", "start it with #!/usr/bin/env bash (or your interpreter)")
			continue
		}
		hooks = append(hooks, h)
	}
	out = append(out, validateClaude(dir, c, rel)...)
	for _, skill := range []bool{true, false} {
		items := c.Recipes
		if skill {
			items = c.Skills
		}
		for _, it := range items {
			d := ReadDoc(it.Path, it.Name, skill)
			if d.Err != nil {
				add("error", rel(it.Path), d.Err.Error(), "fix the YAML between the --- lines")
			}
			for _, w := range d.Warnings {
				add("warning", rel(it.Path), w, fmt.Sprintf("start the file with ---, name: %s, description: ..., ---", it.Name))
			}
		}
	}
	return out, hooks
}

// pluginRootRef finds the files a command names inside the plugin.
var pluginRootRef = lazy.Regexp{Expr: `\$\{?CLAUDE_PLUGIN_ROOT\}?/([^\s"'$;|&)]+)`}

// validateClaude checks the Claude-format parts (SPEC §11): the manifest
// and its paths, each hook configuration and handler, the files commands
// name, and commands hidden by recipes. It runs nothing.
func validateClaude(dir string, c plugins.Contents, rel func(string) string) []Finding {
	var out []Finding
	add := func(sev, file, reason, fix string) {
		out = append(out, Finding{Severity: sev, File: file, Reason: reason, Fix: fix})
	}
	if c.ManifestErr != nil {
		add("error", plugins.ClaudeManifestPath, c.ManifestErr.Error(), "component paths are relative to the plugin (./commands), without .. and not absolute")
	}
	if c.Manifest != nil {
		m := c.Manifest
		for _, p := range append(append(append([]string{}, m.Commands...), m.Skills...), m.HookPaths...) {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				add("error", plugins.ClaudeManifestPath, fmt.Sprintf("names %s, which does not exist", p), "fix the path or add the file")
			}
		}
	}
	for _, hf := range c.HookFiles {
		var cfg *Config
		var err error
		if hf.Inline != nil {
			cfg, err = ParseHooksObject(hf.Inline)
		} else {
			var data []byte
			if data, err = safefs.ReadFile(hf.Path, safefs.MaxMeta); err == nil {
				cfg, err = ParseConfig(data)
			}
		}
		file := rel(hf.Path)
		if err != nil {
			add("error", file, err.Error(), `write {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}}`)
			continue
		}
		for _, h := range cfg.Handlers {
			where := fmt.Sprintf("%s (%s)", file, h.ItemName())
			_, mapped := QuiverEvent(h.Event)
			switch {
			case !KnownEvent(h.Event):
				add("error", where, "unknown event "+h.Event, "use an event of Claude Code's hooks reference (PreToolUse, PostToolUse, Stop, ...)")
			case h.NeedsClaude():
				add("info", where, h.Problem+": Claude Code runs it itself; quiver lists it as invalid for other agents", "")
			case !mapped:
				add("warning", where, h.Problem+": quiver lists it as invalid and never runs it", "")
			case strings.HasPrefix(h.Problem, "matcher"), strings.Contains(h.Problem, "no command"), strings.Contains(h.Problem, `no "type"`):
				add("error", where, h.Problem, "")
			case strings.HasPrefix(h.Problem, "timeout"):
				add("error", where, h.Problem, `write a number of seconds from 0.001 to 3600 (more is cut to 3600), or leave "timeout" out`)
			case h.Problem != "":
				add("warning", where, h.Problem+": quiver lists it as invalid and never runs it", "")
			}
			if h.Exec() && strings.ContainsAny(strings.TrimSpace(h.Command), " \t") {
				add("warning", where, `"command" holds whitespace, but with "args" it is one executable's name`, `move the rest into "args": {"command": "node", "args": ["script.js"]}`)
			}
			for _, v := range h.AllowedEnvVars {
				if CredentialVar(v) {
					add("warning", where, "allowedEnvVars lists "+v+", a credential quiver never puts in a header", "give the handler a variable of its own")
				}
			}
			for _, m := range pluginRootRef.Get().FindAllStringSubmatch(strings.Join(append([]string{h.Command}, h.Args...), "\n"), -1) {
				target, err := safefs.RelPath(m[1])
				if err == nil {
					_, err = os.Stat(filepath.Join(dir, filepath.FromSlash(target)))
				}
				if err != nil {
					add("error", where, "the command names ${CLAUDE_PLUGIN_ROOT}/"+m[1]+", which is not in the plugin", "add the file or fix the command")
				}
			}
		}
	}
	for _, p := range c.CommandClashes {
		add("warning", rel(p), "a recipe of the same name hides this command", "rename one of them; recipes/ wins")
	}
	return out
}

func readHead(path string, n int) (string, error) {
	f, err := safefs.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, _ := io.ReadFull(f, buf) // a shorter file is simply its whole head
	return string(buf[:k]), nil
}

func isMachO(head string) bool {
	switch head {
	case "\xcf\xfa\xed\xfe", "\xce\xfa\xed\xfe", "\xca\xfe\xba\xbe":
		return true
	}
	return false
}
