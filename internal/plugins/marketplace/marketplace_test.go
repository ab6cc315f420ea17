package marketplace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestParseFile covers what makes a whole marketplace.json unreadable:
// then nothing of it is used.
func TestParseFile(t *testing.T) {
	tests := []struct {
		name, data, wantErr string
	}{
		{"not json", `{"name": "m", "plugins": [`, "is not valid JSON"},
		{"not an object", `["a"]`, "is not valid JSON"},
		{"trailing data", `{"name": "m", "plugins": []} {"plugins": []}`, "more follows its object"},
		{"no plugins", `{"name": "m"}`, "has no plugins list"},
		{"plugins not a list", `{"name": "m", "plugins": {"a": 1}}`, "plugins is not a list"},
		{"absolute plugin root", `{"name": "m", "metadata": {"pluginRoot": "/etc"}, "plugins": []}`, "metadata.pluginRoot"},
		{"escaping plugin root", `{"name": "m", "metadata": {"pluginRoot": "../up"}, "plugins": []}`, "metadata.pluginRoot"},
		{"too many entries", `{"name": "m", "plugins": [` + strings.Repeat(`{},`, MaxEntries) + `{}]}`, fmt.Sprintf("lists more than %d plugins", MaxEntries)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Parse = %v, %v; want an error containing %q", m, err, tt.wantErr)
			}
		})
	}
}

// TestParseEntries checks each entry on its own: one that breaks a rule
// carries a Problem naming it, and the others are still usable.
func TestParseEntries(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	tests := []struct {
		name, entry string
		want        Source // for entries without a problem
		problem     string // a substring of the problem
	}{
		// Every source type of SPEC §12.
		{name: "dot path", entry: `{"name": "a", "source": "./plugins/a"}`, want: Source{Type: "path", Path: "plugins/a"}},
		{name: "bare path under pluginRoot", entry: `{"name": "a", "source": "a"}`, want: Source{Type: "path", Path: "root/a"}},
		{name: "repository root", entry: `{"name": "a", "source": "./"}`, want: Source{Type: "path"}},
		{name: "github", entry: `{"name": "a", "source": {"source": "github", "repo": "acme/tool", "ref": "v1"}}`, want: Source{Type: "github", Repo: "acme/tool", Ref: "v1"}},
		{name: "github sha", entry: `{"name": "a", "source": {"source": "github", "repo": "acme/tool", "sha": "` + sha + `"}}`, want: Source{Type: "github", Repo: "acme/tool", SHA: sha}},
		{name: "url", entry: `{"name": "a", "source": {"source": "url", "url": "https://git.example.com/t.git"}}`, want: Source{Type: "url", URL: "https://git.example.com/t.git"}},
		{name: "url with path", entry: `{"name": "a", "source": {"source": "url", "url": "https://git.example.com/t.git", "path": "./plugins/a/"}}`, want: Source{Type: "url", URL: "https://git.example.com/t.git", Path: "plugins/a"}},
		{name: "url ssh", entry: `{"name": "a", "source": {"source": "url", "url": "git@github.com:acme/tool.git"}}`, want: Source{Type: "url", URL: "git@github.com:acme/tool.git"}},
		{name: "git-subdir", entry: `{"name": "a", "source": {"source": "git-subdir", "url": "https://github.com/acme/mono.git", "path": "plugins/a", "ref": "main", "sha": "` + sha + `"}}`, want: Source{Type: "git-subdir", URL: "https://github.com/acme/mono.git", Path: "plugins/a", Ref: "main", SHA: sha}},

		// Paths that leave the repository.
		{name: "dotdot path", entry: `{"name": "a", "source": "../../etc"}`, problem: `source unsafe path "../../etc": has a .. segment`},
		{name: "dot dotdot path", entry: `{"name": "a", "source": "./plugins/../../x"}`, problem: "has a .. segment"},
		{name: "absolute path", entry: `{"name": "a", "source": "/etc"}`, problem: "absolute"},
		{name: "backslash path", entry: `{"name": "a", "source": "./a\\..\\b"}`, problem: "backslash"},
		{name: "control character in path", entry: `{"name": "a", "source": "./a\u0007b"}`, problem: "control"},
		{name: "url path escapes", entry: `{"name": "a", "source": {"source": "git-subdir", "url": "https://h/o/r.git", "path": "../x"}}`, problem: "source path"},
		{name: "url path absolute", entry: `{"name": "a", "source": {"source": "url", "url": "https://h/o/r.git", "path": "/x"}}`, problem: "absolute"},

		// Sources that name this machine, or nothing.
		{name: "url local path", entry: `{"name": "a", "source": {"source": "url", "url": "/home/me/secret"}}`, problem: "never names this machine's files"},
		{name: "url relative path", entry: `{"name": "a", "source": {"source": "url", "url": "../secret"}}`, problem: "never names this machine's files"},
		{name: "url file scheme", entry: `{"name": "a", "source": {"source": "git-subdir", "url": "file:///home/me/repo", "path": "x"}}`, problem: "never names this machine's files"},
		{name: "url shorthand", entry: `{"name": "a", "source": {"source": "url", "url": "acme/tool"}}`, problem: "not a remote git URL"},
		{name: "url other scheme", entry: `{"name": "a", "source": {"source": "url", "url": "ftp://h/o/r"}}`, problem: "unsupported scheme"},
		{name: "url with ref", entry: `{"name": "a", "source": {"source": "url", "url": "https://h/o/r.git@v1"}}`, problem: "give the ref in the ref or sha field"},
		{name: "github dotdot", entry: `{"name": "a", "source": {"source": "github", "repo": "../etc"}}`, problem: "is not owner/repo"},
		{name: "github three parts", entry: `{"name": "a", "source": {"source": "github", "repo": "a/b/c"}}`, problem: "is not owner/repo"},
		{name: "url missing", entry: `{"name": "a", "source": {"source": "url"}}`, problem: "url source has no url"},
		{name: "git-subdir without path", entry: `{"name": "a", "source": {"source": "git-subdir", "url": "https://h/o/r.git"}}`, problem: "has no path"},
		{name: "npm", entry: `{"name": "a", "source": {"source": "npm", "package": "x"}}`, problem: `source type "npm" is not supported`},
		{name: "pip", entry: `{"name": "a", "source": {"source": "pip", "package": "x"}}`, problem: `source type "pip" is not supported`},
		{name: "object without type", entry: `{"name": "a", "source": {"url": "https://h/o/r.git"}}`, problem: "has no type"},
		{name: "source a number", entry: `{"name": "a", "source": 3}`, problem: "neither a path nor an object"},
		{name: "no source", entry: `{"name": "a"}`, problem: "has no source"},
		{name: "short sha", entry: `{"name": "a", "source": {"source": "github", "repo": "o/r", "sha": "abc1234"}}`, problem: "is not a 40-hex commit"},
		{name: "bad ref", entry: `{"name": "a", "source": {"source": "github", "repo": "o/r", "ref": "../../x"}}`, problem: "ref"},

		// Names.
		{name: "uppercase name", entry: `{"name": "Guard", "source": "./a"}`, problem: "not a valid plugin name"},
		{name: "name with space", entry: `{"name": "a b", "source": "./a"}`, problem: "not a valid plugin name"},
		{name: "name with slash", entry: `{"name": "a/b", "source": "./a"}`, problem: "not a valid plugin name"},
		{name: "dot name", entry: `{"name": "..", "source": "./a"}`, problem: "not a valid plugin name"},
		{name: "hidden name", entry: `{"name": ".a", "source": "./a"}`, problem: "not a valid plugin name"},
		{name: "bidi name", entry: `{"name": "a\u202eb", "source": "./a"}`, problem: "not a valid plugin name"},
		{name: "no name", entry: `{"source": "./a"}`, problem: "has no name"},
		{name: "name not a string", entry: `{"name": 1, "source": "./a"}`, problem: "name is not a string"},

		// Other fields.
		{name: "entry not an object", entry: `"a"`, problem: "is not a JSON object"},
		{name: "keywords not strings", entry: `{"name": "a", "keywords": "x", "source": "./a"}`, problem: "keywords is not a list of strings"},
		{name: "strict not bool", entry: `{"name": "a", "strict": "no", "source": "./a"}`, problem: "strict is not true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"name": "m", "metadata": {"pluginRoot": "./root"}, "plugins": [` + tt.entry + `, {"name": "fine", "source": "./fine"}]}`
			m, err := Parse([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Entries) != 2 {
				t.Fatalf("%d entries, want 2", len(m.Entries))
			}
			e := m.Entries[0]
			if tt.problem != "" {
				if !strings.Contains(e.Problem, tt.problem) {
					t.Errorf("problem %q, want one containing %q", e.Problem, tt.problem)
				}
				if _, _, err := m.Find(e.Name); err == nil {
					t.Errorf("Find(%q) of a broken entry succeeded", e.Name)
				}
			} else {
				if e.Problem != "" {
					t.Fatalf("problem %q", e.Problem)
				}
				if e.Source != tt.want {
					t.Errorf("source %+v, want %+v", e.Source, tt.want)
				}
			}
			if fine := m.Entries[1]; fine.Problem != "" {
				t.Errorf("a good entry beside a broken one has a problem: %s", fine.Problem)
			}
		})
	}
}

func TestParseDuplicatesAndRenames(t *testing.T) {
	m, err := Parse([]byte(`{"name": "m", "renames": {"old": "new", "gone": null},
		"plugins": [
			{"name": "dup", "source": "./a"},
			{"name": "new", "source": "./new"},
			{"name": "dup", "source": "./b"},
			{"source": "./c"},
			{"source": "./d"}
		]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2} {
		if !strings.Contains(m.Entries[i].Problem, "the name dup is used by 2 entries") {
			t.Errorf("entry %d: problem %q", i, m.Entries[i].Problem)
		}
	}
	// Nameless entries are named by their place, and not as duplicates.
	if m.Entries[3].Name != "#4" || m.Entries[3].Problem != "has no name" || m.Entries[4].Name != "#5" {
		t.Errorf("nameless entries: %+v, %+v", m.Entries[3], m.Entries[4])
	}
	if _, _, err := m.Find("dup"); err == nil || !strings.Contains(err.Error(), "used by 2 entries") {
		t.Errorf("Find(dup) = %v", err)
	}
	e, name, err := m.Find("old")
	if err != nil || name != "new" || e.Source.Path != "new" {
		t.Errorf("Find(old) = %+v, %q, %v; want the entry new", e, name, err)
	}
	if _, _, err := m.Find("gone"); err == nil || !strings.Contains(err.Error(), "plugin gone was withdrawn from marketplace m") {
		t.Errorf("Find(gone) = %v", err)
	}
	if _, _, err := m.Find("nope"); err == nil || !strings.Contains(err.Error(), "marketplace m has no plugin nope") {
		t.Errorf("Find(nope) = %v", err)
	}
}

func TestStrictFalseEntryIsTheManifest(t *testing.T) {
	m, err := Parse([]byte(`{"name": "m", "plugins": [
		{"name": "loose", "strict": false, "source": "./", "skills": ["./a", "./b"], "commands": "./cmds", "hooks": {"Stop": []}, "lspServers": {"x": {}}},
		{"name": "strict", "source": "./s", "skills": ["./a"], "mcpServers": {"y": {}}, "agents": ["./ag.md"]},
		{"name": "bare", "strict": false, "source": "./b"},
		{"name": "unicode", "strict": false, "source": "./u", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo é\u202e😀\u007f"}]}]}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	loose, strict := m.Entries[0], m.Entries[1]
	var manifest map[string]json.RawMessage
	if err := json.Unmarshal([]byte(loose.Manifest), &manifest); err != nil {
		t.Fatal(err)
	}
	// Every component field, servers too (SPEC §16).
	if len(manifest) != 4 || string(manifest["commands"]) != `"./cmds"` || string(manifest["lspServers"]) != `{"x":{}}` {
		t.Errorf("strict false manifest %s", loose.Manifest)
	}
	if loose.Strict || !strict.Strict || strict.Manifest != "" {
		t.Errorf("strict: %v %v, manifest of a strict entry %s", loose.Strict, strict.Strict, strict.Manifest)
	}
	if m.Entries[2].Manifest != "" {
		t.Errorf("a strict false entry without component fields has manifest %s", m.Entries[2].Manifest)
	}
	// Stored as printable ASCII, meaning the same.
	if want := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo \u00e9\u202e\ud83d\ude00\u007f"}]}]}}`; m.Entries[3].Manifest != want {
		t.Errorf("manifest %s, want %s", m.Entries[3].Manifest, want)
	}
	var back, orig any
	json.Unmarshal([]byte(m.Entries[3].Manifest), &back)
	json.Unmarshal([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo é\u202e😀\u007f"}]}]}}`), &orig)
	if fmt.Sprint(back) != fmt.Sprint(orig) {
		t.Errorf("escaped manifest means %v, want %v", back, orig)
	}
}

func TestSpec(t *testing.T) {
	const mkt, commit, base = "https://git.example.com/acme/market.git", "1111111111111111111111111111111111111111", "http://127.0.0.1:9/base"
	sha := strings.Repeat("cd", 20)
	tests := []struct {
		src                      Source
		url, subdir, ref, source string
	}{
		{Source{Type: "path", Path: "plugins/a"}, mkt, "plugins/a", commit, mkt},
		{Source{Type: "path"}, mkt, "", commit, mkt},
		{Source{Type: "github", Repo: "acme/tool", Ref: "v1"}, base + "/acme/tool.git", "", "v1", base + "/acme/tool.git"},
		{Source{Type: "github", Repo: "acme/tool", Ref: "v1", SHA: sha}, base + "/acme/tool.git", "", sha, base + "/acme/tool.git"},
		{Source{Type: "url", URL: "https://github.com/acme/u.git", Path: "p"}, "https://github.com/acme/u.git", "p", "", "https://github.com/acme/u.git"},
		{Source{Type: "git-subdir", URL: "https://github.com/acme/mono.git", Path: "plugins/x", Ref: "main"}, "https://github.com/acme/mono.git", "plugins/x", "main", "https://github.com/acme/mono.git"},
	}
	for _, tt := range tests {
		t.Run(tt.src.Type, func(t *testing.T) {
			spec, err := Entry{Name: "e", Source: tt.src}.Spec(mkt, commit, base)
			if err != nil {
				t.Fatal(err)
			}
			if spec.URL != tt.url || spec.Subdir != tt.subdir || spec.Ref != tt.ref || spec.Source() != tt.source {
				t.Errorf("spec url %q subdir %q ref %q source %q; want %q %q %q %q", spec.URL, spec.Subdir, spec.Ref, spec.Source(), tt.url, tt.subdir, tt.ref, tt.source)
			}
		})
	}
	// A url entry never reaches the local disk, even if it got past Parse.
	if _, err := (Entry{Name: "e", Source: Source{Type: "url", URL: "/etc"}}).Spec(mkt, commit, base); err == nil {
		t.Error("a url entry naming /etc resolved")
	}
	// What marketplace.json names is held to the rule of sources read from
	// a file: plain http only under the user's git base, no credentials.
	for _, src := range []Source{
		{Type: "url", URL: "http://attacker.example/acme/x.git"},
		{Type: "git-subdir", URL: "http://127.0.0.1:9/acme/x.git", Path: "plugins/x"},
		{Type: "url", URL: "file:///home/u/.aws"},
		{Type: "url", URL: "https://u:hunter2@github.com/acme/x.git"},
		{Type: "url", URL: "ext::sh"},
	} {
		_, err := Entry{Name: "e", Source: src}.Spec(mkt, commit, base)
		if !errors.Is(err, plugins.ErrFileSource) || !strings.Contains(err.Error(), "entry e: url ") ||
			!strings.Contains(err.Error(), "if you mean it, run quiver plugin add ") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("entry with %+v: %v; want ErrFileSource naming the entry, its url and the way to take it", src, err)
		}
	}
	if spec, err := (Entry{Name: "e", Source: Source{Type: "url", URL: base + "/acme/x.git"}}).Spec(mkt, commit, base); err != nil || spec.URL != base+"/acme/x.git" {
		t.Errorf("a url under the user's git base: %+v, %v", spec, err)
	}
	if _, err := (Entry{Name: "e", Source: Source{Type: "url", URL: "https://github.com/acme/x.git", Ref: "--upload-pack=x"}}).Spec(mkt, commit, base); err == nil {
		t.Error("an entry with an option as its ref resolved")
	}
	if _, err := (Entry{Name: "e", Source: Source{Type: "npm"}}).Spec(mkt, commit, base); err == nil {
		t.Error("an npm entry resolved")
	}
	// A local marketplace's path entries are folders of it.
	local, err := Entry{Name: "e", Source: Source{Type: "path", Path: "plugins/a"}}.Spec("/srv/market", "", base)
	if err != nil || local.Path != "/srv/market" || local.Subdir != "plugins/a" {
		t.Errorf("local marketplace: %+v, %v", local, err)
	}
}

// TestScore: every word must match somewhere, one quoted term is its
// words, and the best match ranks first (SPEC §12).
func TestScore(t *testing.T) {
	e := Entry{Name: "code-review", Description: "Reviews pull requests", Category: "Development", Keywords: []string{"quality"}, Tags: []string{"community-managed"}}
	tests := []struct {
		terms []string
		want  int // -1: no match
	}{
		{nil, 0},
		{[]string{"review"}, scoreInName},
		{[]string{"code-review"}, scoreName},
		{[]string{"REVIEW", "pull"}, scoreInName + scoreDescribe},
		{[]string{"review", "absent"}, -1},
		{[]string{"develop"}, scoreKeyword},
		{[]string{"quality", "community"}, 2 * scoreKeyword},
		{[]string{"code-review pull"}, scoreName + scoreDescribe}, // one quoted term is two words
		{[]string{"\x00"}, -1},
	}
	for _, tt := range tests {
		got, ok := Score(e, Words(tt.terms))
		if (tt.want < 0) == ok || (ok && got != tt.want) {
			t.Errorf("Score(%q) = %d %v, want %d", tt.terms, got, ok, tt.want)
		}
	}
	// A name equal to the word outranks one containing it, which outranks
	// a keyword, which outranks the description.
	rank := []Entry{{Name: "review"}, {Name: "code-review"}, {Name: "x", Keywords: []string{"review"}}, {Name: "y", Description: "a review tool"}}
	last := 1 << 30
	for _, e := range rank {
		s, ok := Score(e, Words([]string{"review"}))
		if !ok || s >= last {
			t.Errorf("%s scores %d after %d", e.Name, s, last)
		}
		last = s
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadDir(dir); err == nil {
		t.Fatal("a folder without marketplace.json read")
	}
	p := filepath.Join(dir, filepath.FromSlash(File))
	os.MkdirAll(filepath.Dir(p), 0o755)
	// Huge: refused whole, before parsing.
	huge := `{"name": "m", "description": "` + strings.Repeat("x", MaxFile) + `", "plugins": []}`
	if err := os.WriteFile(p, []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "is larger than") {
		t.Errorf("a huge marketplace.json: %v", err)
	}
	// Not a regular file: named, never a hang.
	os.Remove(p)
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDir(dir); err == nil {
		t.Error("a marketplace.json linked to /dev/zero read")
	}
	os.Remove(p)
	os.WriteFile(p, []byte(`{"name": "m", "plugins": [{"name": "a", "source": "./a"}]}`), 0o644)
	m, err := ReadDir(dir)
	if err != nil || m.Name != "m" || len(m.Entries) != 1 {
		t.Errorf("ReadDir = %+v, %v", m, err)
	}
}

// BenchmarkSearch matches two words against every entry of a 1,000-entry
// marketplace, as `quiver search` does, from parsing the file on.
func BenchmarkSearch(b *testing.B) {
	var entries []string
	for i := range 1000 {
		entries = append(entries, fmt.Sprintf(`{"name": "plugin-%d", "version": "1.%d.0", "description": "Plugin number %d: reviews code, writes tests and keeps the changelog of project %d tidy for the team", "category": "development", "keywords": ["review", "testing", "k%d"], "tags": ["community-managed"], "source": {"source": "git-subdir", "url": "https://github.com/acme/mono.git", "path": "plugins/p%d", "ref": "main"}}`, i, i, i, i, i, i))
	}
	data := []byte(`{"name": "big", "owner": {"name": "acme"}, "plugins": [` + strings.Join(entries, ",") + `]}`)
	words := Words([]string{"Review", "project 99"})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, e := range m.Entries {
			if _, ok := Score(e, words); ok {
				n++
			}
		}
		if n == 0 {
			b.Fatal("no matches")
		}
	}
}
