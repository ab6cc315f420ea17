package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

const benchHook = "#!/bin/sh\n[ \"$1\" = hook ] && { echo before_tool_call; exit 0; }\ncat >/dev/null\necho '{\"blocked\":false}'\n"

var benchPayload = []byte(`{"event":"before_tool_call","tool_name":"bash","tool_input":{"command":"ls -la /tmp"},"conv_id":"c","cwd":"/tmp","invoked_by":"main"}`)

func writeBenchHook(b *testing.B, dir, name string) string {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(benchHook), 0o755); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkOverheadPerHook runs the same sh hook directly with os/exec
// (payload in, stdout out: the floor) and through the executor,
// interleaved so machine noise hits both alike, and reports the per-hook
// overhead of quiver's side.
func BenchmarkOverheadPerHook(b *testing.B) {
	dir := b.TempDir()
	path := writeBenchHook(b, dir, "h")
	ex := &Executor{ProjectDir: dir, Env: os.Environ(), Timeout: 10 * time.Second}
	h := discovery.Hook{Name: "h", Path: path, Status: discovery.Active}
	var direct, quiver time.Duration
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(path, "run")
		cmd.Stdin = bytes.NewReader(benchPayload)
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
		direct += time.Since(start)

		start = time.Now()
		if o := ex.Run(context.Background(), h, format.BeforeToolCall, benchPayload, dir); o.Status != OK {
			b.Fatal(o.Status, o.Error)
		}
		quiver += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(direct.Microseconds())/n/1000, "direct-ms/hook")
	b.ReportMetric(float64(quiver.Microseconds())/n/1000, "quiver-ms/hook")
	b.ReportMetric(float64((quiver-direct).Microseconds())/n/1000, "overhead-ms/hook")
	b.ReportMetric(float64(quiver)/float64(direct), "ratio")
}

// BenchmarkHookRun is `hook run` in process: discovery with a warm cache,
// then the trigger over 0 or 10 matching sh hooks.
func BenchmarkHookRun(b *testing.B) {
	for _, n := range []int{0, 10} {
		b.Run(fmt.Sprintf("hooks=%d", n), func(b *testing.B) {
			base := b.TempDir()
			project := filepath.Join(base, "project")
			os.MkdirAll(project, 0o755)
			l := plugins.NewLayout(project, filepath.Join(base, "home"))
			for i := range n {
				writeBenchHook(b, filepath.Join(l.Global.Root, "hooks"), fmt.Sprintf("h%02d", i))
			}
			o := discovery.Options{Layout: l, Env: os.Environ()}
			ex := &Executor{ProjectDir: project, Env: os.Environ(), Timeout: 10 * time.Second}
			trig := &Trigger{Run: ex.Run, ProjectDir: project}
			if _, err := discovery.Hooks(context.Background(), o); err != nil { // warm the cache
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				hs, err := discovery.Hooks(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				p, err := ParsePayload(format.BeforeToolCall, benchPayload, project)
				if err != nil {
					b.Fatal(err)
				}
				res := trig.Fire(context.Background(), format.BeforeToolCall, p, hs.Active(format.BeforeToolCall))
				if len(res.Hooks) != n {
					b.Fatal(len(res.Hooks))
				}
				json.Marshal(res)
			}
		})
	}
}

// BenchmarkCombine is the trigger's own work for 10 hooks that each rewrite
// the input: payload encoding per hook and result chaining, no processes.
func BenchmarkCombine(b *testing.B) {
	s := &scripted{answers: map[string]Outcome{}, seen: map[string]map[string]json.RawMessage{}}
	var names []string
	for i := range 10 {
		name := fmt.Sprintf("h%d", i)
		names = append(names, name)
		s.answers[name] = ok(fmt.Sprintf(`{"input":{"command":"ls %d"}}`, i))
	}
	run := func(_ context.Context, h discovery.Hook, _ string, _ []byte, _ string) Outcome {
		o := s.answers[h.Name]
		o.Hook = h
		return o
	}
	trig := &Trigger{Run: run}
	hooks := hookSet(names...)
	p, _ := ParsePayload(format.BeforeToolCall, benchPayload, "/p")
	for b.Loop() {
		trig.Fire(context.Background(), format.BeforeToolCall, p, hooks)
	}
}

func BenchmarkParsePayload(b *testing.B) {
	for b.Loop() {
		if _, err := ParsePayload(format.BeforeToolCall, benchPayload, "/p"); err != nil {
			b.Fatal(err)
		}
	}
}
