package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// tree is a project and a home built in a temp dir.
type tree struct {
	t      *testing.T
	layout plugins.Layout
	count  string // file each hook appends its name to when asked `hook`
}

func newTree(t *testing.T) *tree {
	t.Helper()
	base := t.TempDir()
	project := filepath.Join(base, "project")
	os.MkdirAll(project, 0o755)
	return &tree{t: t, layout: plugins.NewLayout(project, filepath.Join(base, "home", ".quiver")), count: filepath.Join(base, "asked")}
}

func (tr *tree) root(loc plugins.Location) string {
	if loc == plugins.Local {
		return tr.layout.Local.Root
	}
	return tr.layout.Global.Root
}

// write creates a file under a scope root; mode 0 means 0644.
func (tr *tree) write(loc plugins.Location, rel, body string, mode os.FileMode) string {
	tr.t.Helper()
	if mode == 0 {
		mode = 0o644
	}
	p := filepath.Join(tr.root(loc), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

// hook writes an executable that answers event to `hook` and records
// that it was asked.
func (tr *tree) hook(loc plugins.Location, rel, event string) string {
	return tr.write(loc, rel, hookScript(event), 0o755)
}

func hookScript(event string) string {
	return fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = hook ]; then echo \"$0\" >> \"$QUIVER_TEST_ASKED\"; echo %s; fi\nexit 0\n", event)
}

// disable records plugin name as disabled in the scope's lock file.
func (tr *tree) disable(loc plugins.Location, name string) {
	tr.t.Helper()
	s := plugins.Scope{Location: loc, Root: tr.root(loc)}
	lock, err := plugins.ReadLock(s.LockPath())
	if err != nil {
		tr.t.Fatal(err)
	}
	lock.Plugins[name] = plugins.LockEntry{Source: "/src", Disabled: true}
	if err := plugins.WriteLock(s.LockPath(), lock); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) options() Options {
	return Options{Layout: tr.layout, Env: append(os.Environ(), "QUIVER_TEST_ASKED="+tr.count), TrustAll: true, QueryTimeout: 2 * time.Second}
}

func (tr *tree) hooks(o Options) *HookSet {
	tr.t.Helper()
	hs, err := Hooks(tr.t.Context(), o)
	if err != nil {
		tr.t.Fatal(err)
	}
	return hs
}

// asked returns the hooks asked `hook` since the last call.
func (tr *tree) asked() []string {
	data, _ := os.ReadFile(tr.count)
	os.Remove(tr.count)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l != "" {
			out = append(out, filepath.Base(l))
		}
	}
	slices.Sort(out)
	return out
}

// summary renders items as "name status [reason]" lines in order.
func summary[T any](items []T, f func(T) (string, Status, string)) []string {
	var out []string
	for _, it := range items {
		n, s, r := f(it)
		line := n + " " + string(s)
		if r != "" {
			line += " (" + r + ")"
		}
		out = append(out, line)
	}
	return out
}

func hookSummary(hs *HookSet) []string {
	return summary(hs.Hooks, func(h Hook) (string, Status, string) { return h.Name, h.Status, h.Reason })
}

func docLines(ds []Doc) []string {
	return summary(ds, func(d Doc) (string, Status, string) { return d.Name, d.Status, d.Reason })
}

// The same full name in each pair of the four sources: the earlier source
// wins (SPEC §4). Recipe names may contain '/', so a standalone recipe can
// collide with a plugin's, which makes every pair testable.
func TestPrecedencePairs(t *testing.T) {
	sources := []struct {
		desc string
		loc  plugins.Location
		rel  string
	}{
		{"local standalone", plugins.Local, "recipes/acme/guard/r.md"},
		{"local acme/guard", plugins.Local, "plugins/acme@guard/recipes/r.md"},
		{"global standalone", plugins.Global, "recipes/acme/guard/r.md"},
		{"global acme/guard", plugins.Global, "plugins/acme@guard/recipes/r.md"},
	}
	for i, win := range sources {
		for _, lose := range sources[i+1:] {
			t.Run(win.desc+" over "+lose.desc, func(t *testing.T) {
				tr := newTree(t)
				tr.write(win.loc, win.rel, "---\ndescription: winner\n---\n", 0)
				tr.write(lose.loc, lose.rel, "---\ndescription: loser\n---\n", 0)
				ds, err := Recipes(tr.options())
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"acme/guard/r active", "acme/guard/r shadowed (shadowed by " + win.desc + ")"}
				if got := docLines(ds); !slices.Equal(got, want) {
					t.Fatalf("got %q, want %q", got, want)
				}
				if ds[0].Description != "winner" || ds[0].Location != win.loc {
					t.Errorf("winner is %+v", ds[0])
				}
			})
		}
	}
}

func TestResolverTable(t *testing.T) {
	tests := []struct {
		name  string
		build func(tr *tree)
		hooks []string
		docs  func(o Options) ([]Doc, error)
		items []string
	}{
		{
			name: "run order: local standalone, local plugins, global standalone, global plugins; by name within a folder",
			build: func(tr *tree) {
				tr.hook(plugins.Global, "plugins/zed@last/hooks/a", format.BeforeToolCall)
				tr.hook(plugins.Global, "hooks/b", format.BeforeToolCall)
				tr.hook(plugins.Global, "hooks/a", format.BeforeToolCall)
				tr.hook(plugins.Local, "plugins/acme@guard/hooks/z", format.BeforeToolCall)
				tr.hook(plugins.Local, "plugins/acme@guard/hooks/m", format.BeforeToolCall)
				tr.hook(plugins.Local, "hooks/y", format.BeforeToolCall)
			},
			hooks: []string{"y active", "acme/guard/m active", "acme/guard/z active", "a active", "b active", "zed/last/a active"},
		},
		{
			name: "a local standalone hook shadows a global one of the same name",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "hooks/audit", format.AfterToolCall)
				tr.hook(plugins.Global, "hooks/audit", format.AfterToolCall)
			},
			hooks: []string{"audit active", "audit shadowed (shadowed by local standalone)"},
		},
		{
			name: "a plugin in both scopes: the local install shadows the global one as a whole",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
				tr.hook(plugins.Global, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
				tr.hook(plugins.Global, "plugins/acme@guard/hooks/only-global", format.BeforeToolCall)
			},
			hooks: []string{
				"acme/guard/v active",
				"acme/guard/only-global shadowed (shadowed by local acme/guard)",
				"acme/guard/v shadowed (shadowed by local acme/guard)",
			},
		},
		{
			name: "standalone and plugin hooks never collide: plugin names are prefixed",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "hooks/v", format.BeforeToolCall)
				tr.hook(plugins.Local, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
			},
			hooks: []string{"v active", "acme/guard/v active"},
		},
		{
			name: "a disabled plugin contributes nothing and shadows nothing by name",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
				tr.disable(plugins.Local, "acme/guard")
			},
			hooks: []string{"acme/guard/v disabled (plugin acme/guard is disabled)"},
		},
		{
			name: "a local plugin the user disabled still shadows its global install",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
				tr.disable(plugins.Local, "acme/guard")
				n, _ := plugins.ParseName("acme/guard")
				if err := ChooseDisabled(tr.layout, []plugins.Name{n}, true); err != nil {
					tr.t.Fatal(err)
				}
				tr.hook(plugins.Global, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
			},
			hooks: []string{"acme/guard/v disabled (plugin acme/guard is disabled)", "acme/guard/v shadowed (shadowed by local acme/guard)"},
		},
		{
			name: "a local plugin the repository committed disabled does not switch the global one off",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
				tr.disable(plugins.Local, "acme/guard")
				tr.hook(plugins.Global, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
			},
			hooks: []string{"acme/guard/v disabled (plugin acme/guard is disabled)", "acme/guard/v active"},
		},
		{
			name: ".disable hooks are listed, not run, and do not claim the name",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "hooks/audit.disable", format.AfterToolCall)
				tr.hook(plugins.Global, "hooks/audit", format.AfterToolCall)
			},
			hooks: []string{"audit disabled (file name ends in .disable)", "audit active"},
		},
		{
			name: "hidden files, subfolders, non-executables and README are not hooks",
			build: func(tr *tree) {
				tr.hook(plugins.Local, "hooks/.hidden", format.BeforeToolCall)
				tr.hook(plugins.Local, "hooks/sub/deep", format.BeforeToolCall)
				tr.write(plugins.Local, "hooks/README.md", "docs", 0)
				tr.write(plugins.Local, "hooks/notes.txt", "x", 0o644)
				tr.hook(plugins.Local, "hooks/real", format.BeforeToolCall)
			},
			hooks: []string{"real active"},
		},
		{
			name: "nested recipes keep their path; README and hidden files are not recipes",
			build: func(tr *tree) {
				tr.write(plugins.Local, "plugins/acme@guard/recipes/ops/deploy.md", "x", 0)
				tr.write(plugins.Local, "plugins/acme@guard/recipes/ops/README.md", "x", 0)
				tr.write(plugins.Local, "plugins/acme@guard/recipes/Readme.MD", "x", 0)
				tr.write(plugins.Local, "plugins/acme@guard/recipes/.draft.md", "x", 0)
				tr.write(plugins.Local, "plugins/acme@guard/recipes/.wip/x.md", "x", 0)
				tr.write(plugins.Local, "plugins/acme@guard/recipes/nested/skills/y/SKILL.md", "x", 0)
				tr.write(plugins.Local, "recipes/a.md", "x", 0)
			},
			docs:  Recipes,
			items: []string{"a active", "acme/guard/nested/skills/y/SKILL active", "acme/guard/ops/deploy active"},
		},
		{
			name: "skills: one folder each, SKILL.md required, plugin prefix",
			build: func(tr *tree) {
				tr.write(plugins.Global, "plugins/acme@guard/skills/review/SKILL.md", "---\nname: review\ndescription: d\n---\n", 0)
				tr.write(plugins.Global, "plugins/acme@guard/skills/empty/notes.md", "x", 0)
				tr.write(plugins.Local, "skills/review/SKILL.md", "---\nname: review\ndescription: d\n---\n", 0)
			},
			docs:  Skills,
			items: []string{"review active", "acme/guard/review active"},
		},
		{
			name: "a malformed SKILL.md is invalid and does not claim its name",
			build: func(tr *tree) {
				tr.write(plugins.Local, "skills/review/SKILL.md", "---\nname: [unclosed\n---\n", 0)
				tr.write(plugins.Global, "skills/review/SKILL.md", "---\nname: review\ndescription: d\n---\n", 0)
			},
			docs:  Skills,
			items: []string{"review invalid (frontmatter: yaml: line 1: did not find expected ',' or ']')", "review active"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tt.build(tr)
			if tt.docs != nil {
				ds, err := tt.docs(tr.options())
				if err != nil {
					t.Fatal(err)
				}
				if got := docLines(ds); !slices.Equal(got, tt.items) {
					t.Fatalf("got  %q\nwant %q", got, tt.items)
				}
				return
			}
			if got := hookSummary(tr.hooks(tr.options())); !slices.Equal(got, tt.hooks) {
				t.Fatalf("got  %q\nwant %q", got, tt.hooks)
			}
		})
	}
}

// When the project is the home (local root == global root) there is one
// scope, global, and its hooks need no trust.
func TestLocalRootIsGlobalRoot(t *testing.T) {
	home := t.TempDir()
	tr := &tree{t: t, layout: plugins.NewLayout(home, filepath.Join(home, ".quiver")), count: filepath.Join(t.TempDir(), "asked")}
	if tr.layout.Local != nil {
		t.Fatal("expected a single scope")
	}
	tr.hook(plugins.Global, "hooks/h", format.TurnEnd)
	o := tr.options()
	o.TrustAll = false
	hs := tr.hooks(o)
	if got := hookSummary(hs); !slices.Equal(got, []string{"h active"}) || hs.Hooks[0].Location != plugins.Global {
		t.Fatalf("got %q (%+v)", got, hs.Hooks)
	}
}

// The first discovery asks each hook once, the second asks none, touching
// one hook makes exactly that one asked again.
func TestTypeCacheAsksOnlyChangedHooks(t *testing.T) {
	tr := newTree(t)
	var all []string
	for i := range 6 {
		tr.hook(plugins.Global, fmt.Sprintf("plugins/p@q%d/hooks/h%d", i, i), format.Events()[i%len(format.Events())])
		all = append(all, fmt.Sprintf("h%d", i))
	}
	touched := tr.hook(plugins.Local, "hooks/local", format.TurnEnd)
	all = append(all, "local")
	slices.Sort(all)

	first := tr.hooks(tr.options())
	if got := tr.asked(); !slices.Equal(got, all) {
		t.Fatalf("first discovery asked %q, want each once: %q", got, all)
	}
	second := tr.hooks(tr.options())
	if got := tr.asked(); len(got) != 0 {
		t.Fatalf("warm discovery asked %q, want none", got)
	}
	if !slices.Equal(hookSummary(first), hookSummary(second)) {
		t.Errorf("cached result differs:\n%q\n%q", hookSummary(first), hookSummary(second))
	}
	for i, h := range second.Hooks {
		if h.Event != first.Hooks[i].Event || h.Event == "" {
			t.Errorf("%s: event %q from cache, %q asked", h.Name, h.Event, first.Hooks[i].Event)
		}
	}
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(touched, later, later)
	tr.hooks(tr.options())
	if got := tr.asked(); !slices.Equal(got, []string{"local"}) {
		t.Fatalf("after touching one hook, asked %q", got)
	}
	// A corrupt cache is rebuilt silently.
	os.WriteFile(filepath.Join(tr.layout.Global.CacheDir(), typeCacheFile), []byte("{garbage"), 0o644)
	if got := hookSummary(tr.hooks(tr.options())); !slices.Equal(got, hookSummary(first)) {
		t.Errorf("after a corrupt cache: %q", got)
	}
	if got := tr.asked(); len(got) != 6 {
		t.Errorf("corrupt global cache: asked %q, want the 6 global hooks again", got)
	}
	tr.hooks(tr.options())
	if got := tr.asked(); len(got) != 0 {
		t.Errorf("rebuilt cache not used: asked %q", got)
	}
}

// A freshly cloned project's hook is never executed, not even to ask its
// event, until the user trusts it; changing it makes it untrusted again.
func TestUntrustedProjectHooksNeverRun(t *testing.T) {
	tr := newTree(t)
	marker := filepath.Join(t.TempDir(), "ran")
	script := fmt.Sprintf("#!/bin/sh\ntouch %s\necho before_tool_call\n", marker)
	hookPath := tr.write(plugins.Local, "hooks/x", script, 0o755)
	tr.hook(plugins.Global, "hooks/mine", format.BeforeToolCall)
	o := tr.options()
	o.TrustAll = false

	hs := tr.hooks(o)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("untrusted project hook was executed")
	}
	want := []string{"x untrusted (project hooks are not trusted; review them and run quiver trust)", "mine active"}
	if got := hookSummary(hs); !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
	if len(hs.Active(format.BeforeToolCall)) != 1 || hs.UntrustedCount() != 1 {
		t.Errorf("active %v, untrusted %d", hs.Active(format.BeforeToolCall), hs.UntrustedCount())
	}

	if _, err := RecordTrust(tr.layout); err != nil {
		t.Fatal(err)
	}
	hs = tr.hooks(o)
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("trusted hook was not asked its event")
	}
	if got := hs.Active(format.BeforeToolCall); len(got) != 2 || got[0].Name != "x" {
		t.Fatalf("trusted: active %v", got)
	}

	os.Remove(marker)
	os.WriteFile(hookPath, []byte(script+"# changed\n"), 0o755)
	hs = tr.hooks(o)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("changed project hook was executed without new trust")
	}
	if hs.Hooks[0].Status != Untrusted {
		t.Errorf("changed hook is %s", hs.Hooks[0].Status)
	}
	// Flipping only the exec bit of a non-hook file counts too.
	RecordTrust(tr.layout)
	tr.write(plugins.Local, "hooks/notes", "#!/bin/sh\n", 0o644)
	t1, _ := ProjectTrust(tr.layout, false)
	os.Chmod(filepath.Join(tr.layout.Local.Root, "hooks", "notes"), 0o755)
	t2, _ := ProjectTrust(tr.layout, false)
	if t1.Fingerprint == t2.Fingerprint {
		t.Error("exec bit not in the fingerprint")
	}
	if had, err := RevokeTrust(tr.layout); err != nil || !had {
		t.Errorf("revoke: %v %v", had, err)
	}
}

// An untrusted project cannot switch off the user's global hooks by
// installing a plugin of the same name.
func TestUntrustedPluginDoesNotShadowGlobal(t *testing.T) {
	tr := newTree(t)
	tr.write(plugins.Local, "plugins/acme@guard/hooks/v", "#!/bin/sh\nexit 1\n", 0o755)
	tr.hook(plugins.Global, "plugins/acme@guard/hooks/v", format.BeforeToolCall)
	o := tr.options()
	o.TrustAll = false
	got := hookSummary(tr.hooks(o))
	want := []string{"acme/guard/v untrusted (project hooks are not trusted; review them and run quiver trust)", "acme/guard/v active"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

// Broken hooks show up invalid with a reason and never stop the listing.
func TestInvalidHooks(t *testing.T) {
	tr := newTree(t)
	tr.write(plugins.Global, "hooks/hangs", "#!/bin/sh\nsleep 30\n", 0o755)
	tr.write(plugins.Global, "hooks/garbage", "#!/bin/sh\nprintf 'not-an-event\\033[31m'\n", 0o755)
	tr.write(plugins.Global, "hooks/fails", "#!/bin/sh\necho boom >&2\nexit 3\n", 0o755)
	tr.write(plugins.Global, "hooks/no-shebang", "echo before_tool_call\n", 0o755)
	tr.write(plugins.Global, "hooks/not-exec", "#!/bin/sh\necho before_tool_call\n", 0o644)
	tr.hook(plugins.Global, "hooks/ok", format.BeforeToolCall)
	o := tr.options()
	o.QueryTimeout = 300 * time.Millisecond
	start := time.Now()
	hs := tr.hooks(o)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("discovery took %s with a hanging hook", d)
	}
	want := []string{
		`fails invalid (` + "`hook`" + ` exited with status 3: boom)`,
		`garbage invalid (answered "not-an-event\x1b[31m" to ` + "`hook`" + `: "not-an-event\x1b[31m" is not a quiver event; want one of session_start, before_tool_call, after_tool_call, user_message_send, agent_stop, turn_end, or another of Claude Code's events in snake_case (docs/hooks.md))`,
		"hangs invalid (did not answer `hook` within 300ms)",
		"no-shebang invalid (cannot run it: exec format error (is there a #! line?))",
		"ok active",
	}
	if got := hookSummary(hs); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
