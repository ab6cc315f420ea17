package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// benchLayout builds a home with n plugins of 5 hooks, 3 skills and 3
// recipes each, reused by all runs of one benchmark (churning files on these
// disks costs more than what is measured).
func benchLayout(b *testing.B, n int) plugins.Layout {
	base, err := os.MkdirTemp("", "quiver-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(base) })
	project := filepath.Join(base, "project")
	os.MkdirAll(project, 0o755)
	l := plugins.NewLayout(project, filepath.Join(base, "home"))
	for i := range n {
		dir := filepath.Join(l.Global.PluginsDir(), fmt.Sprintf("org%d@plugin%d", i, i))
		for h := range 5 {
			p := filepath.Join(dir, "hooks", fmt.Sprintf("hook%d", h))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(fmt.Sprintf("#!/bin/sh\n[ \"$1\" = hook ] && echo %s\nexit 0\n", format.Events()[h])), 0o755)
		}
		for s := range 3 {
			p := filepath.Join(dir, "skills", fmt.Sprintf("skill%d", s), "SKILL.md")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(fmt.Sprintf("---\nname: skill%d\ndescription: skill %d of plugin %d\n---\nBody.\n", s, s, i)), 0o644)
			r := filepath.Join(dir, "recipes", fmt.Sprintf("recipe%d.md", s))
			os.MkdirAll(filepath.Dir(r), 0o755)
			os.WriteFile(r, []byte(fmt.Sprintf("---\ndescription: recipe %d\n---\nDo it.\n", s)), 0o644)
		}
	}
	return l
}

// BenchmarkDiscoverHooks measures hook discovery with a warm type cache (no
// process starts) and a cold one (every hook asked `hook`).
func BenchmarkDiscoverHooks(b *testing.B) {
	for _, n := range []int{100, 1000} {
		l := benchLayout(b, n)
		o := Options{Layout: l, Env: os.Environ()}
		cache := filepath.Join(l.Global.CacheDir(), typeCacheFile)
		b.Run(fmt.Sprintf("plugins=%d/warm", n), func(b *testing.B) {
			if _, err := Hooks(b.Context(), o); err != nil { // fill the cache
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				hs, err := Hooks(b.Context(), o)
				if err != nil || len(hs.Hooks) != 5*n {
					b.Fatal(err, len(hs.Hooks))
				}
			}
		})
		b.Run(fmt.Sprintf("plugins=%d/cold", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				os.Remove(cache)
				b.StartTimer()
				if _, err := Hooks(b.Context(), o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkForEvent picks the hooks of an event none of 5,000 has, what
// every hook run does after discovery.
func BenchmarkForEvent(b *testing.B) {
	hs := &HookSet{}
	for i := range 5000 {
		hs.Hooks = append(hs.Hooks, Hook{Name: fmt.Sprintf("org%d/plugin%d/hook%d", i/5, i/5, i%5), Event: format.Events()[1+i%5], Status: Active})
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(hs.ForEvent(format.Events()[0])) != 0 {
			b.Fatal("matched")
		}
	}
}

// BenchmarkHookEntries is hook list's conversion of 5,000 hooks to its
// entries, before JSON.
func BenchmarkHookEntries(b *testing.B) {
	hs := &HookSet{}
	for i := range 5000 {
		n, err := plugins.ParseName(fmt.Sprintf("org%d/plugin%d", i/5, i/5))
		if err != nil {
			b.Fatal(err)
		}
		hs.Hooks = append(hs.Hooks, Hook{Name: fmt.Sprintf("org%d/plugin%d/hook%d", i/5, i/5, i%5), Event: format.Events()[i%5], Plugin: n, Status: Active})
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(HookEntries(hs, false)) != 5000 {
			b.Fatal("lost hooks")
		}
	}
}

func BenchmarkDiscoverSkills(b *testing.B) {
	l := benchLayout(b, 1000)
	o := Options{Layout: l}
	for b.Loop() {
		ds, err := Skills(o)
		if err != nil || len(ds) != 3000 {
			b.Fatal(err, len(ds))
		}
	}
}

// BenchmarkTypeCacheLoad reads a 5,000-entry hook type cache, the fixed
// cost of every warm discovery at N = 1,000.
func BenchmarkTypeCacheLoad(b *testing.B) {
	s := plugins.Scope{Location: plugins.Global, Root: b.TempDir()}
	fc := loadFileCache(s, typeCacheFile, hookTypeCodec)
	fi, err := os.Stat(s.Root)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5000 {
		fc.store(filepath.Join(s.Root, "plugins", fmt.Sprintf("org%d@plugin%d", i/5, i/5), "hooks", fmt.Sprintf("hook%d", i%5)), fi, hookType{Declared: Declared{Event: format.Events()[i%5]}})
	}
	fc.save()
	for b.Loop() {
		if c := loadFileCache(s, typeCacheFile, hookTypeCodec); c.len() != 5000 {
			b.Fatal(c.len())
		}
	}
}

// BenchmarkResolve is the precedence rule over 5,000 hooks where every
// name is held twice (local and global), the pure part of discovery.
func BenchmarkResolve(b *testing.B) {
	base := make([]Hook, 0, 5000)
	for i := range 5000 {
		loc := plugins.Local
		if i%2 == 1 {
			loc = plugins.Global
		}
		base = append(base, Hook{Name: fmt.Sprintf("org%d/plugin/hook%d", i/2, i%5), Location: loc, Event: format.Events()[i%5]})
	}
	hooks := make([]Hook, len(base))
	for b.Loop() {
		copy(hooks, base)
		for i := range hooks {
			hooks[i].Status = Active
		}
		resolveHooks(hooks)
	}
}

// BenchmarkSessionHooks is a hook serve request's share of discovery when
// nothing changed: the session answers from memory after one read of its
// inotify queue.
func BenchmarkSessionHooks(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("plugins=%d/unchanged", n), func(b *testing.B) {
			s := NewSession(Options{Layout: benchLayout(b, n), Env: os.Environ()})
			defer s.Close()
			for range 3 { // ask, then settle the watches
				if _, err := s.Hooks(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			runs := s.runs
			b.ResetTimer()
			for b.Loop() {
				hs, err := s.Hooks(b.Context())
				if err != nil || len(hs.Hooks) != 5*n {
					b.Fatal(err, len(hs.Hooks))
				}
			}
			if s.runs != runs {
				b.Fatalf("%d full discoveries while nothing changed", s.runs-runs)
			}
		})
		// turn_end: no hook of the layout handles it, as in quiverbench's
		// serve measurement.
		b.Run(fmt.Sprintf("plugins=%d/unchanged/ForEvent-no-match", n), func(b *testing.B) {
			s := NewSession(Options{Layout: benchLayout(b, n), Env: os.Environ()})
			defer s.Close()
			for range 3 {
				if _, err := s.ForEvent(b.Context(), format.TurnEnd); err != nil {
					b.Fatal(err)
				}
			}
			runs := s.runs
			b.ResetTimer()
			for b.Loop() {
				e, err := s.ForEvent(b.Context(), format.TurnEnd)
				if err != nil || len(e.Hooks) != 0 {
					b.Fatal(err, len(e.Hooks))
				}
			}
			if s.runs != runs {
				b.Fatalf("%d full discoveries while nothing changed", s.runs-runs)
			}
		})
	}
}

// BenchmarkDiscoverHooksTrustedProject is a hook run in a trusted project
// whose 10 plugins carry 5 hooks and 45 other files (4 KiB) each: the
// trust fingerprint hashes all 500 files at every run.
func BenchmarkDiscoverHooksTrustedProject(b *testing.B) {
	base := b.TempDir()
	project := filepath.Join(base, "project")
	l := plugins.NewLayout(project, filepath.Join(base, "home"))
	body := make([]byte, 4096)
	for i := range 10 {
		dir := filepath.Join(l.Local.PluginsDir(), fmt.Sprintf("org%d@plugin%d", i, i))
		for h := range 5 {
			p := filepath.Join(dir, "hooks", fmt.Sprintf("hook%d", h))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(fmt.Sprintf("#!/bin/sh\n[ \"$1\" = hook ] && echo %s\nexit 0\n", format.Events()[h])), 0o755)
		}
		for f := range 45 {
			p := filepath.Join(dir, "lib", fmt.Sprintf("d%d", f%5), fmt.Sprintf("f%d.py", f))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, body, 0o644)
		}
	}
	if _, err := RecordTrust(l); err != nil {
		b.Fatal(err)
	}
	o := Options{Layout: l, Env: os.Environ()}
	if hs, err := Hooks(b.Context(), o); err != nil || !hs.Trust.Trusted() {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Hooks(b.Context(), o); err != nil {
			b.Fatal(err)
		}
	}
}
