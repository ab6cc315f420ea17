package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

func TestParse(t *testing.T) {
	f, err := Parse([]byte(`version: 1
sources:
  allow: [github.com/acme/*, "marketplace:https://github.com/anthropics/claude-plugins-official"]
  deny:  [github.com/evil/**]
marketplaces:
  allow: []
require:
  pinned: true
  lock: false
hooks:
  handler_types: [command, HTTP]
  http_urls: ["http://127.0.0.1:*"]
mcp:
  allow: ["acme-tools-*", "npx -y @modelcontextprotocol/*"]
  transports: [stdio]
scan:
  hidden_unicode: warn
`), "p.yaml", User)
	if err != nil {
		t.Fatal(err)
	}
	want := &File{Path: "p.yaml", Level: User,
		Sources:       Lists{Allow: []string{"github.com/acme/*", "marketplace:github.com/anthropics/claude-plugins-official"}, Deny: []string{"github.com/evil/**"}},
		Marketplaces:  Lists{Allow: []string{}},
		Require:       Require{Pinned: true},
		Hooks:         Hooks{HandlerTypes: []string{"command", "http"}, HTTPURLs: []string{"http://127.0.0.1:*"}},
		MCP:           MCP{Allow: []string{"acme-tools-*", "npx -y @modelcontextprotocol/*"}, Transports: []string{"stdio"}},
		HiddenUnicode: Warn,
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", f, want)
	}
}

// Lists are tri-state: missing or null says nothing (nil), [] allows
// nothing (empty, not nil).
func TestParseTriState(t *testing.T) {
	for _, tc := range []struct {
		doc       string
		nil_      bool
		wantCount int
	}{
		{"sources: {}", true, 0},
		{"sources: {allow: null}", true, 0},
		{"sources: {allow: }", true, 0},
		{"sources: {allow: []}", false, 0},
		{"sources: {allow: [a/b]}", false, 1},
		{"", true, 0},
		{"# only a comment", true, 0},
	} {
		f, err := Parse([]byte(tc.doc), "p", Project)
		if err != nil {
			t.Fatalf("%q: %v", tc.doc, err)
		}
		if (f.Sources.Allow == nil) != tc.nil_ || len(f.Sources.Allow) != tc.wantCount {
			t.Errorf("%q: allow = %#v", tc.doc, f.Sources.Allow)
		}
	}
}

func TestParseWarningsAndErrors(t *testing.T) {
	f, err := Parse([]byte("version: 1\nsources:\n  alow: [x/y]\nextends: org\nhooks:\n  handler_types: [command, telepathy]\n"), "p.yaml", Project)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(f.Warnings, "\n")
	for _, w := range []string{"p.yaml: line 3: unknown field sources.alow (ignored)", "p.yaml: line 4: unknown field extends (ignored)", `line 6: hooks.handler_types: "telepathy" can never match`} {
		if !strings.Contains(got, w) {
			t.Errorf("warnings %q lack %q", got, w)
		}
	}
	if !reflect.DeepEqual(f.Hooks.HandlerTypes, []string{"command"}) {
		t.Errorf("handler types %v", f.Hooks.HandlerTypes)
	}
	for doc, want := range map[string]string{
		"sources: [a/b]":                     "line 1: sources must be a mapping",
		"sources: {allow: a/b}":              "sources.allow must be a list of strings",
		"sources: {allow: [1]}":              "sources.allow must be a list of strings",
		"sources: {allow: [{a: b}]}":         "sources.allow must be a list of strings",
		"require: {pinned: yes please}":      "require.pinned must be true or false",
		"require: {lock: 1}":                 "require.lock must be true or false",
		"scan: {hidden_unicode: maybe}":      `scan.hidden_unicode must be block, warn or off, not "maybe"`,
		"version: 2":                         "version must be 1",
		"[a, b]":                             "a policy must be a mapping",
		"sources: {allow: [a]}\nsources: {}": "sources is given twice",
		"sources: {allow: [\"\"]}":           "an empty pattern",
		"a: b\n---\nc: d":                    "more than one YAML document",
		"sources: {allow: [a/b":              "did not find expected",
		// A merge key says what it merges: read as an unknown field it
		// would drop the admin's deny list (fail open).
		"base: &b {deny: [github.com/evil/*]}\nsources:\n  <<: *b": "merge key",
		"<<: {require: {pinned: true}}":                            "merge key",
	} {
		_, err := Parse([]byte(doc), "p", Project)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", doc, err, want)
		}
	}
}

// Load reads the machine's file (QUIVER_POLICY_FILE replaces it, and must
// exist), the user's and the project's; a file that does not parse fails
// closed; -g leaves the project's out.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	old := MachinePath
	MachinePath = filepath.Join(dir, "etc", "policy.yaml")
	t.Cleanup(func() { MachinePath = old })
	layout := plugins.NewLayout(filepath.Join(dir, "proj"), filepath.Join(dir, "home", ".quiver"))
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	p := Load(layout, getenv, nil)
	if len(p.Files) != 0 || p.Err() != nil {
		t.Fatalf("no files: %+v %v", p.Files, p.Err())
	}
	write(MachinePath, "require: {pinned: true}\n")
	write(filepath.Join(layout.Global.Root, FileName), "sources: {deny: [a/**]}\n")
	write(filepath.Join(layout.Local.Root, FileName), "sources: {allow: [}\n")
	p = Load(layout, getenv, nil)
	if len(p.Files) != 3 || p.Files[0].Level != Machine || p.Files[1].Level != User || p.Files[2].Level != Project {
		t.Fatalf("files %+v", p.Files)
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), filepath.Join("proj", ".quiver", "policy.yaml")) || !strings.Contains(err.Error(), "nothing is installed") {
		t.Errorf("a broken project policy: %v", err)
	}
	if err := p.Frozen(); err == nil {
		t.Error("a broken policy froze nothing")
	}
	if err := p.Scope(true).Err(); err != nil {
		t.Errorf("-g reads the project's policy: %v", err)
	}
	env[EnvFile] = filepath.Join(dir, "missing.yaml")
	if err := Load(layout, getenv, nil).Scope(true).Err(); err == nil || !strings.Contains(err.Error(), "QUIVER_POLICY_FILE names "+env[EnvFile]+", which does not exist") {
		t.Errorf("a missing QUIVER_POLICY_FILE: %v", err)
	}
	env[EnvFile] = "relative.yaml"
	if err := Load(layout, getenv, nil).Err(); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Errorf("a relative QUIVER_POLICY_FILE: %v", err)
	}
	env[EnvFile] = "/dev/null/x"
	if err := Load(layout, getenv, nil).Err(); err == nil {
		t.Error("an unreadable QUIVER_POLICY_FILE is no error")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err == nil {
		env[EnvFile] = fifo
		if err := Load(layout, getenv, nil).Err(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO policy: %v", err)
		}
	}
}
