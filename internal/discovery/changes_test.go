package discovery

import (
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// changes is a Changes of the project's scope of tr, collecting what it
// has to say.
func (tr *tree) changes(agent string, said *[]string) *Changes {
	in := plugins.NewInstaller(tr.layout, false)
	in.Fetcher = &plugins.Fetcher{}
	return &Changes{Layout: tr.layout, Installer: in, Agent: agent, Repair: func() error { return nil },
		Notify: func(n string) { *said = append(*said, n) }}
}

// plainPlugin writes a plugin folder with one hook and returns its add
// request.
func (tr *tree) plainPlugin(name string) plugins.AddRequest {
	tr.t.Helper()
	src := filepath.Join(tr.t.TempDir(), "src")
	os.MkdirAll(filepath.Join(src, "hooks"), 0o755)
	os.WriteFile(filepath.Join(src, "hooks", "check"), []byte("#!/bin/sh\necho before_tool_call\n"), 0o755)
	spec, err := plugins.ParseSpec(src, "", tr.layout.ProjectDir)
	if err != nil {
		tr.t.Fatal(err)
	}
	n, _ := plugins.ParseName(name)
	return plugins.AddRequest{Spec: spec, Name: n}
}

// TestChangesKeepTrust: in a trusted project, the user's own add,
// disable, enable and remove keep it trusted, and record (then forget)
// the user's choices; none of them asks a hook anything.
func TestChangesKeepTrust(t *testing.T) {
	tr := newTree(t)
	if _, err := Decide(tr.layout, false, "", nil, scan.Block); err != nil {
		t.Fatal(err)
	}
	trusted := func(when string) {
		t.Helper()
		if pt, err := ProjectTrust(tr.layout, false); err != nil || !pt.Trusted() {
			t.Fatalf("%s: the project is no longer trusted (%v)", when, err)
		}
	}
	var said, added []string
	c := tr.changes("", &said)
	req := tr.plainPlugin("acme/guard")
	err := c.Add(t.Context(), []plugins.AddRequest{req}, func(p plugins.Plugin, err error) {
		if err != nil {
			t.Error(err)
		}
		added = append(added, p.Name.String())
	})
	if err != nil || !slices.Equal(added, []string{"acme/guard"}) {
		t.Fatalf("add: %v, reported %q", err, added)
	}
	trusted("after add")
	ch, _ := readChoices(tr.layout)
	if _, ok := ch.Plugins["acme/guard"]; !ok {
		t.Errorf("the added plugin is not the user's choice: %+v", ch.Plugins)
	}

	names := []plugins.Name{req.Name}
	if err := c.SetDisabled(t.Context(), names, true); err != nil {
		t.Fatal(err)
	}
	trusted("after disable")
	if !disabledByUser(tr.layout)["acme/guard"] {
		t.Error("disable is not recorded as the user's")
	}
	if err := c.SetDisabled(t.Context(), names, false); err != nil || disabledByUser(tr.layout)["acme/guard"] {
		t.Errorf("enable: %v, still recorded disabled", err)
	}
	if err := c.Remove(t.Context(), names, false); err != nil {
		t.Fatal(err)
	}
	trusted("after remove")
	if ch, _ := readChoices(tr.layout); len(ch.Plugins) != 0 {
		t.Errorf("a removed plugin is still chosen: %+v", ch.Plugins)
	}
	want := []string{"Disabled acme/guard in the project", "Enabled acme/guard in the project", "Removed acme/guard in the project"}
	if !slices.Equal(said, want) {
		t.Errorf("said %q, want %q (a kept trust says nothing)", said, want)
	}
	if asked := tr.asked(); len(asked) != 0 {
		t.Errorf("changes asked %v", asked)
	}
}

// TestChangesInAnAgentSession: inside an agent's session a change is
// made but nothing is recorded, and the user is told to trust the
// project themselves.
func TestChangesInAnAgentSession(t *testing.T) {
	tr := newTree(t)
	var said []string
	c := tr.changes("CLAUDECODE", &said)
	if err := c.Add(t.Context(), []plugins.AddRequest{tr.plainPlugin("acme/guard")}, func(plugins.Plugin, error) {}); err != nil {
		t.Fatal(err)
	}
	if n, _ := plugins.ParseName("acme/guard"); !plugins.Installed(*tr.layout.Local, n) {
		t.Error("the plugin was not added")
	}
	if ch, _ := readChoices(tr.layout); len(ch.Plugins) != 0 {
		t.Errorf("a choice was recorded inside an agent's session: %+v", ch.Plugins)
	}
	if len(said) != 1 || !strings.Contains(said[0], "(CLAUDECODE is set)") {
		t.Errorf("said %q", said)
	}
}

// TestChangesFailedRemoveForgetsNothing: a remove that fails (a plugin
// that is not installed) keeps the user's choices and says where to look.
func TestChangesFailedRemoveForgetsNothing(t *testing.T) {
	tr := newTree(t)
	var said []string
	c := tr.changes("", &said)
	req := tr.plainPlugin("acme/guard")
	if err := c.Add(t.Context(), []plugins.AddRequest{req}, func(plugins.Plugin, error) {}); err != nil {
		t.Fatal(err)
	}
	none, _ := plugins.ParseName("acme/none")
	err := c.Remove(t.Context(), []plugins.Name{req.Name, none}, false)
	if err == nil {
		t.Fatal("removing a plugin that is not installed worked")
	}
	if ch, _ := readChoices(tr.layout); len(ch.Plugins) != 1 {
		t.Errorf("a failed remove forgot the choice: %+v", ch.Plugins)
	}
	if len(said) != 0 {
		t.Errorf("a failed remove said %q", said)
	}
}

// TestChangesDryRunUpdate: a dry run of update changes nothing, so it
// keeps no trust and says nothing.
func TestChangesDryRunUpdate(t *testing.T) {
	tr := newTree(t)
	var said []string
	c := tr.changes("", &said)
	c.Repair = func() error {
		t.Error("a dry run repaired the project")
		return nil
	}
	if _, err := c.Update(t.Context(), nil, plugins.UpdateOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if len(said) != 0 {
		t.Errorf("said %q", said)
	}
}

// TestChangesSetConfig: setting a project plugin's settings is the
// user's own change, which keeps a trusted project trusted and says
// which keys it set.
func TestChangesSetConfig(t *testing.T) {
	tr := newTree(t)
	src := filepath.Join(t.TempDir(), "src")
	os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755)
	os.MkdirAll(filepath.Join(src, "commands"), 0o755)
	os.WriteFile(filepath.Join(src, ".claude-plugin", "plugin.json"), []byte(`{"name":"guard","userConfig":{"region":{"type":"string"},"zone":{"type":"string"}}}`), 0o644)
	os.WriteFile(filepath.Join(src, "commands", "hello.md"), []byte("hello"), 0o644)
	spec, err := plugins.ParseSpec(src, "", tr.layout.ProjectDir)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := plugins.ParseName("acme/guard")
	var said []string
	c := tr.changes("", &said)
	if err := c.Add(t.Context(), []plugins.AddRequest{{Spec: spec, Name: n}}, func(plugins.Plugin, error) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := Decide(tr.layout, false, "", nil, scan.Block); err != nil {
		t.Fatal(err)
	}
	p, err := plugins.ReadPlugin(*tr.layout.Local, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetConfig(p, map[string]string{"zone": "b", "region": "eu"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(said, []string{"Set region, zone of acme/guard in the project"}) {
		t.Errorf("said %q", said)
	}
	if pt, err := ProjectTrust(tr.layout, false); err != nil || !pt.Trusted() {
		t.Errorf("setting a value untrusted the project (%v)", err)
	}
}
