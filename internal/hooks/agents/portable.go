package agents

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// What a project commits is the same for everyone (issue 43): no file
// quiver writes where a team commits names a path of one machine. quiver
// writes none (a project's entries run the bare quiver, its servers name
// no project, and what must name this machine's paths is kept out of git,
// wiring.SyncExcludes), but an older quiver did, and a person's own
// --command may: audit judges the committed files by their content, on
// any machine, CI's included.

// RuleAgentMachinePath is a committed agent file that names a path of one
// machine.
const RuleAgentMachinePath = "quiver/agents/machine-path"

// machinePath matches, in a string of quiver's, an absolute path into an
// installed plugin or quiver's machine folders: what only the machine
// that wrote it can resolve.
var machinePath = lazy.Regexp{Expr: `(?:^|[\s"'=])(/[^\s"']*?/\.quiver/(?:plugins|projects)/[^\s"']*)`}

// projectArg matches --project and an absolute path as an array of a
// JSON or TOML file writes them.
var projectArg = lazy.Regexp{Expr: `--project['"]?\s*,\s*['"](/[^'"]+)`}

// PortabilityCheck finds, in the project of layout's local scope, the
// agents' files that git tracks and that name one machine's paths in what
// quiver writes: a hook entry that runs quiver by an absolute path, a
// server that starts quiver mcp exec --project /abs, a file that names an
// installed plugin's absolute path (a subagent or command an older quiver
// copied in with its paths expanded), and Claude Code's personal
// settings, which name this machine's plugin views. Errors all: a
// teammate's agent would start the author's project, or nothing.
func (w *Wirer) PortabilityCheck() []audit.Finding {
	if w.Layout.Local == nil {
		return nil
	}
	project := w.Layout.ProjectDir
	var candidates []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] && plugins.InsideRoot(p, project) {
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
				seen[p] = true
				candidates = append(candidates, p)
			}
		}
	}
	for _, ag := range All() {
		site := w.Site(ag, false)
		add(site.Config)
		if ag.hasPartFiles() {
			for _, f := range ag.partFilesOf(w, site) {
				add(f.Path)
			}
		}
		dirs := site.Dirs()
		for _, d := range append([]string{dirs.Skills, dirs.Commands, dirs.Agents}, dirs.SkillsToo...) {
			if d == "" {
				continue
			}
			filepath.WalkDir(filepath.Join(project, d), func(p string, e fs.DirEntry, err error) error {
				if err == nil && e.Type().IsRegular() {
					add(p)
				}
				return nil
			})
		}
	}
	add(filepath.Join(project, ".claude", "settings.local.json"))
	if len(candidates) == 0 {
		return nil
	}
	tracked, err := plugins.TrackedByGit(project, candidates)
	if err != nil {
		return nil
	}
	var out []audit.Finding
	finding := func(file, format string, a ...any) {
		out = append(out, audit.Finding{Rule: RuleAgentMachinePath, Severity: audit.Error, File: file, Message: fmt.Sprintf(format, a...)})
	}
	slices.Sort(candidates)
	for _, p := range candidates {
		if !tracked[p] {
			continue
		}
		if filepath.Base(p) == "settings.local.json" {
			finding(p, "git tracks Claude Code's personal settings, which name this machine's plugin views: every teammate's quiver adds a line; git rm --cached %s", p)
			continue
		}
		data, err := safefs.ReadFile(p, safefs.MaxMeta)
		if err != nil {
			continue
		}
		for _, bad := range machineStrings(data) {
			finding(p, "names %s, a path of the machine that wrote it: a teammate's agent cannot resolve it; quiver agent install writes what every machine can read (and keeps this machine's copies out of git)", safefs.Visible(bad))
			break
		}
	}
	return out
}

// machineStrings lists what in data names one machine: a command quiver
// writes that runs quiver by an absolute path, "mcp exec"/"lsp exec"
// given --project /ABS, and absolute paths into .quiver/plugins or
// quiver's machine folders.
func machineStrings(data []byte) []string {
	var out []string
	for _, m := range machinePath.Get().FindAllSubmatch(data, -1) {
		out = append(out, string(m[1]))
	}
	for _, m := range projectArg.Get().FindAllSubmatch(data, -1) {
		out = append(out, "--project "+string(m[1]))
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		walkStrings(v, func(s string) {
			if cmd, _, ok := strings.Cut(s, " hook run --format "); ok && filepath.IsAbs(strings.Trim(cmd, "'")) {
				out = append(out, cmd)
			}
		})
	}
	return out
}

// walkStrings calls one for every string in v.
func walkStrings(v any, one func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			walkStrings(e, one)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, one)
		}
	case string:
		one(x)
	}
}
