package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
)

func file(t testing.TB, level Level, doc string) *File {
	t.Helper()
	f, err := Parse([]byte(doc), "/"+level.String()+".yaml", level)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustName(s string) plugins.Name {
	n, err := plugins.ParseName(s)
	if err != nil {
		panic(err)
	}
	return n
}

func candidate(source, fetched string) plugins.Candidate {
	return plugins.Candidate{Name: mustName("acme/x"), Source: source, Fetched: fetched}
}

// The files tighten one another: allow lists intersect, deny lists join,
// deny beats allow, and a refusal names the file whose rule refused.
func TestSourceMerge(t *testing.T) {
	const (
		acme = "https://github.com/acme/x.git"
		evil = "https://github.com/evil/x.git"
	)
	for _, tc := range []struct {
		name            string
		machine, user   string
		project         string
		source, fetched string
		want            string // "" allowed, else the refusal's text
	}{
		{name: "no policy", source: evil},
		{name: "deny", machine: "sources: {deny: [github.com/evil/**]}", source: evil,
			want: "policy (/machine.yaml): github.com/evil/x is denied by github.com/evil/**"},
		{name: "allow", machine: "sources: {allow: [github.com/acme/*]}", source: acme},
		{name: "not allowed", machine: "sources: {allow: [github.com/acme/*]}", source: evil,
			want: "policy (/machine.yaml): github.com/evil/x is not allowed by sources.allow (github.com/acme/*)"},
		{name: "empty allow", user: "sources: {allow: []}", source: acme,
			want: "policy (/user.yaml): github.com/acme/x is not allowed: sources.allow is [] (nothing may be installed)"},
		{name: "deny beats allow", machine: "sources: {allow: [github.com/**]}", project: "sources: {deny: [github.com/acme/x]}", source: acme,
			want: "policy (/project.yaml): github.com/acme/x is denied by github.com/acme/x"},
		{name: "deny beats allow in one file", machine: "sources: {allow: [github.com/acme/*], deny: [github.com/acme/x]}", source: acme,
			want: "policy (/machine.yaml): github.com/acme/x is denied by github.com/acme/x"},
		{name: "the project cannot loosen", machine: "sources: {allow: [github.com/acme/*]}", project: "sources: {allow: [github.com/evil/*]}", source: evil,
			want: "policy (/machine.yaml): github.com/evil/x is not allowed by sources.allow (github.com/acme/*)"},
		{name: "lists intersect", machine: "sources: {allow: [github.com/**]}", project: "sources: {allow: [github.com/acme/y]}", source: acme,
			want: "policy (/project.yaml): github.com/acme/x is not allowed by sources.allow (github.com/acme/y)"},
		{name: "a missing list says nothing", machine: "sources: {allow: [github.com/acme/*]}", user: "sources: {deny: [gitlab.com/**]}", project: "require: {pinned: false}", source: acme},
		{name: "denied as fetched", machine: "sources: {deny: [mirror.corp/evil/**]}", source: acme, fetched: "https://mirror.corp/evil/x.git",
			want: "policy (/machine.yaml): github.com/acme/x (fetched as mirror.corp/evil/x) is denied by mirror.corp/evil/**"},
		{name: "allowed as fetched", machine: "sources: {allow: [mirror.corp/**]}", source: evil, fetched: "https://mirror.corp/evil/x.git"},
		{name: "allowed as written", machine: "sources: {allow: [github.com/evil/*]}", source: evil, fetched: "https://mirror.corp/evil/x.git"},
		{name: "local folders", machine: "sources: {allow: [github.com/**]}", source: "/home/me/x",
			want: "policy (/machine.yaml): local:/home/me/x is not allowed by sources.allow (github.com/**)"},
		{name: "local allowed", machine: "sources: {allow: [\"local:/home/me/**\"]}", source: "/home/me/x"},
		{name: "the scheme does not count", machine: "sources: {deny: [\"https://GitHub.com/Evil/*\"]}", source: "ssh://git@github.com/evil/x.git",
			want: "is denied by github.com/evil/*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var files []*File
			for i, doc := range []string{tc.machine, tc.user, tc.project} {
				if doc != "" {
					files = append(files, file(t, Level(i), doc))
				}
			}
			p := New(plugins.Layout{}, files...)
			fetched := tc.fetched
			if fetched == "" {
				fetched = tc.source
			}
			err := p.CheckSource(context.Background(), candidate(tc.source, fetched))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want %q", err, tc.want)
			}
			var r *plugins.Refusal
			if err != nil && (!errors.As(err, &r) || r.ID != RuleSourceDenied) {
				t.Errorf("not a source refusal: %#v", err)
			}
		})
	}
}

func TestMarketplaceRules(t *testing.T) {
	p := New(plugins.Layout{}, file(t, Machine, "marketplaces: {allow: [github.com/anthropics/claude-plugins-official]}\nsources: {deny: [github.com/**]}"))
	c := plugins.Candidate{IsMarketplace: true, Source: "https://github.com/anthropics/claude-plugins-official.git"}
	c.Fetched = c.Source
	if err := p.CheckSource(context.Background(), c); err != nil {
		t.Errorf("an allowed marketplace: %v", err)
	}
	c.Source, c.Fetched = "https://github.com/acme/market.git", "https://github.com/acme/market.git"
	err := p.CheckSource(context.Background(), c)
	var r *plugins.Refusal
	if !errors.As(err, &r) || r.ID != RuleMarketplaceDenied || r.Rule != "marketplaces.allow" {
		t.Errorf("another marketplace: %v", err)
	}
}

// Booleans take the stricter: any file's true holds.
func TestFrozen(t *testing.T) {
	for _, tc := range []struct {
		docs []string
		want string
	}{
		{[]string{"require: {lock: false}", "require: {lock: false}"}, ""},
		{[]string{"require: {lock: true}", "require: {lock: false}"}, "/machine.yaml"},
		{[]string{"", "require: {lock: false}", "require: {lock: true}"}, "/project.yaml"},
	} {
		var files []*File
		for i, d := range tc.docs {
			files = append(files, file(t, Level(i), d))
		}
		err := New(plugins.Layout{}, files...).Frozen()
		var r *plugins.Refusal
		switch {
		case tc.want == "" && err != nil, tc.want != "" && (!errors.As(err, &r) || r.File != tc.want || r.Rule != "require.lock"):
			t.Errorf("%v: %v", tc.docs, err)
		}
	}
}

// quiver's default (block) applies where no file speaks; the user may
// lower it unless the machine sets the key; the project never lowers;
// --allow-hidden-unicode lowers to warn, never below a machine's level.
func TestScanMode(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		machine, user, project string
		flag                   bool
		want                   scan.Mode
		from                   string
	}{
		{name: "default", want: scan.Block},
		{name: "flag", flag: true, want: scan.Warn},
		{name: "user lowers the default", user: "off", want: scan.Off, from: "/user.yaml"},
		{name: "user cannot lower the machine's", machine: "block", user: "off", want: scan.Block, from: "/machine.yaml"},
		{name: "user raises the machine's", machine: "off", user: "warn", want: scan.Warn, from: "/user.yaml"},
		{name: "project never lowers", project: "off", want: scan.Block},
		{name: "project never lowers the user's", user: "warn", project: "off", want: scan.Warn, from: "/user.yaml"},
		{name: "project raises", user: "off", project: "warn", want: scan.Warn, from: "/project.yaml"},
		{name: "machine lowers", machine: "warn", want: scan.Warn, from: "/machine.yaml"},
		{name: "flag beside the user's block", user: "block", flag: true, want: scan.Warn},
		{name: "flag beside the project's block", project: "block", flag: true, want: scan.Warn},
		{name: "flag never below the machine's", machine: "block", flag: true, want: scan.Block},
		{name: "flag beside the machine's warn", machine: "warn", flag: true, want: scan.Warn},
		{name: "flag does not raise off", user: "off", flag: true, want: scan.Off},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var files []*File
			for i, v := range []string{tc.machine, tc.user, tc.project} {
				if v != "" {
					files = append(files, file(t, Level(i), "scan: {hidden_unicode: "+v+"}"))
				}
			}
			p := New(plugins.Layout{}, files...)
			if got := p.ScanMode(scan.ModeFor(tc.flag)); got != tc.want {
				t.Errorf("ScanMode = %v, want %v", got, tc.want)
			}
			if !tc.flag {
				if _, from := p.HiddenUnicode(); from != tc.from {
					t.Errorf("from %q, want %q", from, tc.from)
				}
			}
		})
	}
}

// FuzzTightenOnly checks that a later file only tightens: whatever the
// files say, a source the policy of all of them allows is allowed by the
// earlier ones alone, and a scan level is never below the earlier files'
// unless the earlier is quiver's default lowered by the user.
func FuzzTightenOnly(f *testing.F) {
	f.Add("github.com/acme/*", "github.com/evil/**", "github.com/**", "", "github.com/acme/x", "block", "off")
	f.Add("", "", "github.com/acme/*", "github.com/acme/x", "github.com/acme/y", "warn", "block")
	f.Add("**", "", "", "**", "a/b", "", "off")
	f.Fuzz(func(t *testing.T, allow1, deny1, allow2, deny2, source, level1, level2 string) {
		list := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		norm := func(l []string) []string {
			var out []string
			for _, p := range l {
				if v, err := normalPattern(p); err == nil && v != "" {
					out = append(out, v)
				}
			}
			if l != nil && out == nil {
				out = []string{}
			}
			return out
		}
		lvl := func(s string) string {
			if s == Block || s == Warn || s == Off {
				return s
			}
			return ""
		}
		base := &File{Path: "/user.yaml", Level: User, Sources: Lists{Allow: norm(list(allow1)), Deny: norm(list(deny1))}, HiddenUnicode: lvl(level1)}
		proj := &File{Path: "/project.yaml", Level: Project, Sources: Lists{Allow: norm(list(allow2)), Deny: norm(list(deny2))}, HiddenUnicode: lvl(level2)}
		c := plugins.Candidate{Source: source, Fetched: source}
		alone, merged := New(plugins.Layout{}, base), New(plugins.Layout{}, base, proj)
		if merged.CheckSource(context.Background(), c) == nil && alone.CheckSource(context.Background(), c) != nil {
			t.Fatalf("the project's file allows %q, which the user's alone refuses", source)
		}
		if merged.CheckSource(context.Background(), c) == nil && New(plugins.Layout{}, proj).CheckSource(context.Background(), c) != nil {
			t.Fatalf("the merged policy allows %q, which the project's file alone refuses", source)
		}
		a, _ := alone.HiddenUnicode()
		m, _ := merged.HiddenUnicode()
		if levels(m) > levels(a) {
			t.Fatalf("the project lowered scan.hidden_unicode from %s to %s", a, m)
		}
		if merged.ScanMode(scan.Block) > alone.ScanMode(scan.Block) {
			t.Fatalf("the project lowered the scan mode")
		}
	})
}
