package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Tools for plugin authors: plugin init and plugin validate.

func (a *App) newPluginInitCmd() *cobra.Command {
	var name string
	var o plugins.ScaffoldOptions
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Scaffold a new plugin repository",
		Long: `Create a plugin repository in DIR (default: the current folder): plugin.yaml,
hooks/ with a commented bash example for each blocking event, a skill, a
recipe and a README that explains the layout. With --persistent, the
before_tool_call example is a persistent hook: it also answers "serve",
so quiver hook serve starts it once and keeps it running (docs/hooks.md),
and it still works one-shot. With --format claude, the Claude Code layout
instead: .claude-plugin/plugin.json, hooks/hooks.json with a PreToolUse
and a SessionStart handler and their scripts, a command and a skill
(never persistent). A folder that already has files is refused unless
--force. The result passes plugin validate and installs with plugin add
./DIR.`,
		Example: "  quiver plugin init my-plugin\n  quiver plugin init --name acme/guard guard\n  quiver plugin init --persistent --name acme/guard guard\n  quiver plugin init --format claude --name acme/cc cc",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return a.runPluginInit(cmd, dir, name, o)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the plugin's `org/repo` (default local/<folder name>)")
	cmd.Flags().BoolVar(&o.Force, "force", false, "write into a folder that already has files")
	cmd.Flags().StringVar(&o.Format, "format", plugins.FormatNative, "the layout: `native` or claude (Claude Code's plugin format)")
	cmd.Flags().BoolVar(&o.Persistent, "persistent", false, "make the before_tool_call example a persistent hook, kept running by hook serve (native format only)")
	return cmd
}

func (a *App) runPluginInit(cmd *cobra.Command, dir, rawName string, o plugins.ScaffoldOptions) error {
	if o.Format != plugins.FormatNative && o.Format != plugins.FormatClaude {
		return usageErrorf(cmd, "unknown --format %q; want native or claude", o.Format)
	}
	if o.Persistent && o.Format == plugins.FormatClaude {
		return usageErrorf(cmd, "--persistent needs the native format: Claude Code hooks (hooks.json) are never persistent")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if rawName == "" {
		rawName = "local/" + strings.ToLower(filepath.Base(abs))
	}
	name, err := plugins.ParseName(rawName)
	if err != nil {
		return usageErrorf(cmd, "%v; give the plugin's name with --name org/repo", err)
	}
	written, err := plugins.Scaffold(abs, name, o)
	if err != nil {
		return err
	}
	for _, f := range written {
		fmt.Fprintf(a.Stdout, "  %s\n", filepath.Join(dir, f))
	}
	addArg := dir
	if !filepath.IsAbs(dir) {
		addArg = "./" + strings.TrimPrefix(dir, "./") // a spec without ./ would be read as org/repo
	}
	a.warnf("Created plugin %s in %s. Next: quiver plugin validate --run %s && quiver plugin add %s", name, dir, dir, addArg)
	return nil
}

// finding is one problem plugin validate or doctor reports.
type finding struct {
	Severity string `json:"severity"` // error, warning or info
	File     string `json:"file,omitempty"`
	Reason   string `json:"reason"`
	Fix      string `json:"fix,omitempty"`
}

// report is the --json output of validate and doctor.
type report struct {
	Dir      string    `json:"dir,omitempty"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []finding `json:"findings"`
}

func newReport(dir string, fs []finding) report {
	r := report{Dir: dir, Findings: fs}
	if r.Findings == nil {
		r.Findings = []finding{}
	}
	for _, f := range fs {
		switch f.Severity {
		case "error":
			r.Errors++
		case "warning":
			r.Warnings++
		}
	}
	return r
}

// printReport prints findings for humans.
func (a *App) printReport(r report) {
	for _, f := range r.Findings {
		where := f.File
		if where != "" {
			where += ": "
		}
		fmt.Fprintf(a.Stdout, "%-8s %s%s\n", f.Severity, visible(where), visible(f.Reason))
		if f.Fix != "" {
			fmt.Fprintf(a.Stdout, "%-8s fix: %s\n", "", visible(f.Fix))
		}
	}
}

func (a *App) newPluginValidateCmd() *cobra.Command {
	var asJSON, run bool
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check a plugin repository for everything an author can get wrong",
		Long: `Check the plugin in DIR (default: the current folder) before publishing:
hooks without exec bit or #! line, hooks that do not answer "hook" within
5 s or answer an unknown event, hooks that fail "run" on a minimal payload
for their event, skills without frontmatter or description or whose name
differs from their folder, recipes whose frontmatter does not parse,
symlinks leading out of the plugin, an empty plugin, a plugin.yaml that does
not parse. Each finding comes with the file, the reason and a fix.

Native hooks are checked without running them (exec bit, #! line) unless
--run is given: then each is asked "hook" and run on a sample payload for
its event, which runs the plugin's code, so pass --run only for code you
are willing to run (your own). Claude-format hooks.json files are checked
by reading them. Exits 1 on errors, 0 with warnings only.`,
		Example: "  quiver plugin validate --run\n  quiver plugin validate ./my-plugin --json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
				return fmt.Errorf("%s is not a folder", dir)
			}
			if run {
				a.warnf("quiver: validate runs the hooks in %s (\"hook\" and \"run\" on a sample payload) to check them", dir)
			}
			r := newReport(abs, validatePlugin(cmd.Context(), abs, run, a.queryTimeout()))
			if asJSON {
				if err := writeJSON(a.Stdout, r); err != nil {
					return err
				}
			} else {
				a.printReport(r)
			}
			if r.Errors > 0 {
				return fmt.Errorf("%s has %d error(s) and %d warning(s)", dir, r.Errors, r.Warnings)
			}
			if !asJSON {
				a.warnf("%s is a valid plugin (%d warning(s)).", dir, r.Warnings)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&run, "run", false, "also run each native hook (\"hook\", then \"run\" on a sample payload): runs the plugin's code")
	return cmd
}

// samplePayloads are the minimal payloads validate runs each hook with.
var samplePayloads = map[string]string{
	format.BeforeToolCall:  `{"conv_id":"quiver-validate","tool_name":"bash","tool_input":{"command":"echo hello"},"tool_user_id":"validate"}`,
	format.AfterToolCall:   `{"conv_id":"quiver-validate","tool_name":"bash","tool_input":{"command":"echo hello"},"tool_output":"hello\n","tool_user_id":"validate"}`,
	format.UserMessageSend: `{"conv_id":"quiver-validate","message":"hello"}`,
	format.AgentStop:       `{"conv_id":"quiver-validate","messages":[]}`,
	format.TurnEnd:         `{"conv_id":"quiver-validate","response":"hello","turn_number":1}`,
	format.SessionStart:    `{"conv_id":"quiver-validate","source":"startup"}`,
}

// validatePlugin checks the plugin folder dir and returns its findings.
func validatePlugin(ctx context.Context, dir string, run bool, queryTimeout time.Duration) []finding {
	var out []finding
	add := func(sev, file, reason, fix string) {
		out = append(out, finding{Severity: sev, File: file, Reason: reason, Fix: fix})
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
		return out
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
	dataDir, err := os.MkdirTemp("", "quiver-validate-")
	if err == nil {
		defer os.RemoveAll(dataDir)
	}
	ex := &hooks.Executor{ProjectDir: dir, Timeout: 10 * time.Second}
	for _, h := range c.Hooks {
		if h.Disabled {
			add("info", rel(h.Path), "disabled by its .disable suffix: listed, never run", "")
			continue
		}
		out = append(out, validateHook(ctx, dir, rel(h.Path), h.Path, dataDir, ex, run, queryTimeout)...)
	}
	out = append(out, validateClaude(dir, c, rel)...)
	for _, kind := range []discovery.Kind{discovery.Skill, discovery.Recipe} {
		items := c.Recipes
		if kind == discovery.Skill {
			items = c.Skills
		}
		for _, it := range items {
			d := discovery.InspectDoc(kind, it.Path, it.Name)
			if d.Status == discovery.Invalid {
				add("error", rel(it.Path), d.Reason, "fix the YAML between the --- lines")
			}
			for _, w := range d.Warnings {
				add("warning", rel(it.Path), w, fmt.Sprintf("start the file with ---, name: %s, description: ..., ---", it.Name))
			}
		}
	}
	return out
}

// pluginRootRef finds the files a command names inside the plugin.
var pluginRootRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{?CLAUDE_PLUGIN_ROOT\}?/([^\s"'$;|&)]+)`)
})

// validateClaude checks the Claude-format parts (SPEC §11): the manifest
// and its paths, each hook configuration and handler, the files commands
// name, and commands hidden by recipes. It runs nothing.
func validateClaude(dir string, c plugins.Contents, rel func(string) string) []finding {
	var out []finding
	add := func(sev, file, reason, fix string) {
		out = append(out, finding{Severity: sev, File: file, Reason: reason, Fix: fix})
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
		var cfg *format.Config
		var err error
		if hf.Inline != nil {
			cfg, err = format.ParseHooksObject(hf.Inline)
		} else {
			var data []byte
			if data, err = safefs.ReadFile(hf.Path, safefs.MaxMeta); err == nil {
				cfg, err = format.ParseConfig(data)
			}
		}
		file := rel(hf.Path)
		if err != nil {
			add("error", file, err.Error(), `write {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}}`)
			continue
		}
		for _, h := range cfg.Handlers {
			where := fmt.Sprintf("%s (%s)", file, h.ItemName())
			_, mapped := format.QuiverEvent(h.Event)
			switch {
			case !format.KnownEvent(h.Event):
				add("error", where, "unknown event "+h.Event, "use an event of Claude Code's hooks reference (PreToolUse, PostToolUse, Stop, ...)")
			case !mapped:
				add("warning", where, h.Problem+": quiver lists it as invalid and never runs it", "")
			case strings.HasPrefix(h.Problem, "matcher"), strings.Contains(h.Problem, "no command"), strings.Contains(h.Problem, `no "type"`):
				add("error", where, h.Problem, "")
			case strings.HasPrefix(h.Problem, "timeout"):
				add("error", where, h.Problem, `write a number of seconds from 0.001 to 3600 (more is cut to 3600), or leave "timeout" out`)
			case h.Problem != "":
				add("warning", where, h.Problem+": quiver lists it as invalid and never runs it", "")
			}
			for _, m := range pluginRootRef().FindAllStringSubmatch(h.Command, -1) {
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

// validateHook checks one executable: its #! line and, when run is set,
// its answer to `hook` and a run on the sample payload for its event.
// Without run nothing of the plugin's is executed (SPEC §9: nothing
// untrusted is executed to learn about it).
func validateHook(ctx context.Context, dir, relPath, path, dataDir string, ex *hooks.Executor, run bool, queryTimeout time.Duration) []finding {
	errf := func(reason, fix string) []finding {
		return []finding{{Severity: "error", File: relPath, Reason: reason, Fix: fix}}
	}
	if head, err := readHead(path, 4); err != nil {
		return errf(err.Error(), "")
	} else if !strings.HasPrefix(head, "#!") && head != "\x7fELF" && !isMachO(head) {
		return errf("no #! line, so it cannot be executed", "start it with #!/usr/bin/env bash (or your interpreter)")
	}
	if !run {
		return []finding{{Severity: "info", File: relPath, Reason: "not run: its event and its answer are checked with --run, which runs it"}}
	}
	declared, err := discovery.AskType(ctx, path, dir, ex.Env, queryTimeout)
	event := declared.Event
	if err != nil {
		return errf(err.Error(), "make `"+relPath+" hook` print one of: "+strings.Join(format.Events, ", "))
	}
	p, _ := hooks.ParsePayload(event, []byte(samplePayloads[event]), dir)
	data, _ := json.Marshal(p)
	h := discovery.Hook{Name: relPath, Path: path, Location: plugins.Local, Status: discovery.Active}
	if dataDir != "" {
		h.PluginRoot, h.DataDir = dir, filepath.Join(dataDir, "data")
		h.Plugin, _ = plugins.ParseName("validate/plugin")
	}
	o := ex.Run(ctx, h, event, data, dir)
	if o.Status == hooks.Failed || o.Status == hooks.TimedOut {
		return errf(fmt.Sprintf("fails `run` on a minimal %s payload: %s", event, o.Error),
			"tolerate missing fields; print nothing and exit 0 for no action (try: quiver hook test ./"+relPath+" --event "+event+")")
	}
	return nil
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
