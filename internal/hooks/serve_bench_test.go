package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// BenchmarkServeRun is hook serve's run without the pipes: what quiver
// itself spends per request while nothing changed (100 plugins of 5
// hooks, none for the event). The rest of a request's time is the round
// trip between two processes.
func BenchmarkServeRun(b *testing.B) {
	home := b.TempDir()
	for i := range 100 {
		dir := filepath.Join(home, "plugins", "org@p"+string(rune('a'+i%26))+string(rune('a'+i/26)), "hooks")
		os.MkdirAll(dir, 0o755)
		for j := range 5 {
			os.WriteFile(filepath.Join(dir, "h"+string(rune('0'+j))), []byte("#!/bin/sh\n[ \"$1\" = hook ] && echo after_tool_call\n"), 0o755)
		}
	}
	project := b.TempDir()
	os.Mkdir(filepath.Join(project, ".git"), 0o755)
	env := map[string]string{"QUIVER_HOME": home, "HOME": home}
	dir, err := plugins.ProjectDir("", "", project)
	if err != nil {
		b.Fatal(err)
	}
	global, err := plugins.GlobalRoot(func(k string) string { return env[k] })
	if err != nil {
		b.Fatal(err)
	}
	layout := plugins.NewLayout(dir, global)
	o := discovery.Options{Layout: layout, Env: []string{"QUIVER_PROJECT_DIR=" + layout.ProjectDir}, QueryTimeout: discovery.DefaultQueryTimeout}
	s := NewServer(o, &Runner{Executor: Executor{ProjectDir: layout.ProjectDir}}, DefaultTimeout, false)
	defer s.Close()
	params := json.RawMessage(`{"event":"before_tool_call","payload":{"tool_name":"bash","tool_input":{"command":"ls"}}}`)
	ctx := context.Background()
	for range 3 { // the session's first discoveries
		if _, err := s.Handle(ctx, "run", params); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		res, err := s.Handle(ctx, "run", params)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}
