// Package marketplace reads Claude Code's marketplace format
// (.claude-plugin/marketplace.json, SPEC §12): a git repository that lists
// plugins with where to fetch each. It validates every entry as input from
// strangers (names, paths, source types), resolves an entry to what quiver
// fetches, and searches entries. Installing and the lock file stay in
// package plugins.
package marketplace

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// File is where a marketplace repository keeps its index.
const File = ".claude-plugin/marketplace.json"

// MaxFile bounds marketplace.json: the official marketplace of about 300
// entries is 150 KiB, so this is room for tens of thousands.
const MaxFile = 8 << 20

// MaxEntries bounds the plugins list: within MaxFile, a list of empty
// objects would otherwise make millions of entries to check and hold.
const MaxEntries = 10000

// Marketplace is a parsed marketplace.json.
type Marketplace struct {
	Name        string
	Description string
	Owner       string
	PluginRoot  string
	Entries     []Entry
	// Renames maps an old entry name to its new one; "" means withdrawn.
	Renames map[string]string
}

// Entry is one plugin of a marketplace. An entry that breaks a rule has
// Problem set and is never installed; the others still are.
type Entry struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Version     string   `json:"version,omitempty"`
	Category    string   `json:"category,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Source      Source   `json:"source"`
	// Strict false: the entry's own component fields (Manifest, compact
	// JSON in printable ASCII, "" when it has none) are the plugin's
	// manifest, written into it as plugins.EntryManifestPath.
	Strict   bool   `json:"strict"`
	Manifest string `json:"-"`
	Problem  string `json:"problem,omitempty"`
}

// Source says where an entry's plugin is.
type Source struct {
	// Type is "path" (a folder of the marketplace repository), "github",
	// "url" or "git-subdir".
	Type string `json:"type"`
	// Path is the folder: in the marketplace repository for "path",
	// in the fetched repository for the others ("" for its root).
	Path string `json:"path,omitempty"`
	// Repo is org/repo for "github"; URL for "url" and "git-subdir".
	Repo string `json:"repo,omitempty"`
	URL  string `json:"url,omitempty"`
	Ref  string `json:"ref,omitempty"`
	SHA  string `json:"sha,omitempty"`
}

// Parse reads marketplace.json. The file as a whole must be JSON with a
// plugins list; each entry is checked on its own and one that breaks a
// rule carries its Problem. Names shared by several entries are a problem
// of each of them: which one is meant cannot be told.
//
// The file is read as a stream, each entry decoded once into its fields,
// so that a list longer than MaxEntries is refused before it is held.
func Parse(data []byte) (*Marketplace, error) {
	var head struct {
		Name, Description string
		Owner             struct {
			Name string `json:"name"`
		}
		Metadata struct {
			PluginRoot  string `json:"pluginRoot"`
			Description string `json:"description"`
		}
		Renames map[string]*string
	}
	var entries []map[string]json.RawMessage
	hasList := false
	bad := func(err error) error { return fmt.Errorf("%s is not valid JSON: %v", File, err) }
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, bad(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := tok.(string)
		var into any
		switch key {
		case "name":
			into = &head.Name
		case "description":
			into = &head.Description
		case "owner":
			into = &head.Owner
		case "metadata":
			into = &head.Metadata
		case "renames":
			into = &head.Renames
		case "plugins":
			if entries, err = readEntries(dec); err != nil {
				return nil, err
			}
			hasList = true
			continue
		default:
			into = &json.RawMessage{}
		}
		if err := dec.Decode(into); err != nil {
			return nil, bad(fmt.Errorf("%s: %v", key, err))
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, bad(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(errors.New("more follows its object"))
	}
	if !hasList {
		return nil, fmt.Errorf("%s has no plugins list", File)
	}
	m := &Marketplace{Name: head.Name, Description: cmp.Or(head.Description, head.Metadata.Description), Owner: head.Owner.Name, Renames: map[string]string{}}
	if head.Metadata.PluginRoot != "" {
		root, err := safefs.RelPath(head.Metadata.PluginRoot)
		if err != nil {
			return nil, fmt.Errorf("%s: metadata.pluginRoot: %w", File, err)
		}
		m.PluginRoot = root
	}
	for old, to := range head.Renames {
		if to == nil {
			m.Renames[old] = ""
		} else {
			m.Renames[old] = *to
		}
	}
	count := make(map[string]int, len(entries))
	m.Entries = make([]Entry, 0, len(entries))
	for i, fields := range entries {
		e := parseEntry(fields, m.PluginRoot)
		if e.Name == "" {
			e.Name = fmt.Sprintf("#%d", i+1)
		} else {
			count[e.Name]++
		}
		m.Entries = append(m.Entries, e)
	}
	for i, e := range m.Entries {
		if count[e.Name] > 1 && e.Problem == "" {
			m.Entries[i].Problem = fmt.Sprintf("the name %s is used by %d entries", e.Name, count[e.Name])
		}
	}
	return m, nil
}

// readEntries reads the plugins list, each entry into its fields (nil
// for one that is not an object), refusing more than MaxEntries.
func readEntries(dec *json.Decoder) ([]map[string]json.RawMessage, error) {
	if err := expectDelim(dec, '['); err != nil {
		return nil, fmt.Errorf("%s: plugins is not a list: %v", File, err)
	}
	var out []map[string]json.RawMessage
	for dec.More() {
		if len(out) == MaxEntries {
			return nil, fmt.Errorf("%s lists more than %d plugins; quiver reads at most %d", File, MaxEntries, MaxEntries)
		}
		var fields map[string]json.RawMessage
		if err := dec.Decode(&fields); err != nil {
			var typeErr *json.UnmarshalTypeError
			if !errors.As(err, &typeErr) {
				return nil, fmt.Errorf("%s is not valid JSON: %v", File, err)
			}
			fields = nil // not an object: that entry's problem
		}
		out = append(out, fields)
	}
	if err := expectDelim(dec, ']'); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", File, err)
	}
	if out == nil {
		out = []map[string]json.RawMessage{}
	}
	return out, nil
}

// expectDelim reads the next token and checks that it is delim.
func expectDelim(dec *json.Decoder, delim json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != delim {
		return fmt.Errorf("want %q, found %v", delim, tok)
	}
	return nil
}

func parseEntry(fields map[string]json.RawMessage, pluginRoot string) Entry {
	if fields == nil {
		return Entry{Problem: "is not a JSON object"}
	}
	var e Entry
	str := func(key string, into *string) {
		if v, ok := fields[key]; ok {
			if json.Unmarshal(v, into) != nil && e.Problem == "" {
				e.Problem = key + " is not a string"
			}
		}
	}
	str("name", &e.Name)
	str("description", &e.Description)
	str("version", &e.Version)
	str("category", &e.Category)
	for _, key := range []string{"keywords", "tags"} {
		if v, ok := fields[key]; ok {
			var list []string
			if json.Unmarshal(v, &list) != nil {
				e.Problem = cmp.Or(e.Problem, key+" is not a list of strings")
			}
			if key == "keywords" {
				e.Keywords = list
			} else {
				e.Tags = list
			}
		}
	}
	e.Strict = true
	if v, ok := fields["strict"]; ok {
		if json.Unmarshal(v, &e.Strict) != nil {
			e.Problem = cmp.Or(e.Problem, "strict is not true or false")
		}
	}
	if !e.Strict {
		manifest := map[string]json.RawMessage{}
		for _, key := range []string{"commands", "skills", "hooks", "agents", "mcpServers", "lspServers", "outputStyles"} {
			if v, ok := fields[key]; ok {
				manifest[key] = v
			}
		}
		if len(manifest) > 0 {
			data, err := json.Marshal(manifest)
			if err != nil {
				e.Problem = cmp.Or(e.Problem, "its component fields are not valid JSON")
			}
			e.Manifest = asciiJSON(data)
		}
	}
	if e.Problem != "" {
		return e
	}
	if e.Name == "" {
		e.Problem = "has no name"
		return e
	}
	if _, err := plugins.NewName("x", e.Name); err != nil || e.Name != strings.ToLower(e.Name) {
		e.Problem = fmt.Sprintf("name %q is not a valid plugin name (lowercase letters, digits, '_', '.' or '-')", e.Name)
		return e
	}
	src, problem := parseSource(fields["source"], pluginRoot)
	e.Source, e.Problem = src, problem
	return e
}

func parseSource(r json.RawMessage, pluginRoot string) (Source, string) {
	if r == nil {
		return Source{}, "has no source"
	}
	var rel string
	if json.Unmarshal(r, &rel) == nil {
		// "./x" is a folder of the marketplace repository; a bare "x"
		// lies under metadata.pluginRoot; "./" is the repository root.
		if rel == "./" || rel == "." {
			return Source{Type: "path"}, ""
		}
		clean, err := safefs.RelPath(rel)
		if err != nil {
			return Source{}, "source " + err.Error()
		}
		if !strings.HasPrefix(rel, "./") && pluginRoot != "" {
			clean = pluginRoot + "/" + clean
		}
		return Source{Type: "path", Path: clean}, ""
	}
	var obj struct {
		Source string `json:"source"`
		Repo   string `json:"repo"`
		URL    string `json:"url"`
		Path   string `json:"path"`
		Ref    string `json:"ref"`
		SHA    string `json:"sha"`
	}
	if err := json.Unmarshal(r, &obj); err != nil {
		return Source{}, "source is neither a path nor an object"
	}
	s := Source{Type: obj.Source, Ref: obj.Ref, SHA: obj.SHA}
	switch obj.Source {
	case "github":
		// Checked as a name, so that "../x" never reads as a folder.
		org, repo, _ := strings.Cut(obj.Repo, "/")
		if _, err := plugins.NewName(org, strings.TrimSuffix(repo, ".git")); err != nil || strings.Count(obj.Repo, "/") != 1 {
			return s, fmt.Sprintf("github source repo %q is not owner/repo", obj.Repo)
		}
		s.Repo = obj.Repo
	case "url", "git-subdir":
		if obj.URL == "" {
			return s, obj.Source + " source has no url"
		}
		if problem := remoteURL(obj.URL); problem != "" {
			return s, problem
		}
		s.URL = obj.URL
		if obj.Source == "git-subdir" && obj.Path == "" {
			return s, "git-subdir source has no path"
		}
	case "":
		return s, "source object has no type"
	default:
		return s, fmt.Sprintf("source type %q is not supported by quiver (it installs git repositories: a path, github, url or git-subdir)", obj.Source)
	}
	if obj.Path != "" && obj.Path != "./" && obj.Path != "." {
		clean, err := safefs.RelPath(obj.Path)
		if err != nil {
			return s, "source path " + err.Error()
		}
		s.Path = clean
	}
	if s.SHA != "" && !plugins.IsCommit(s.SHA) {
		return s, fmt.Sprintf("sha %q is not a 40-hex commit", s.SHA)
	}
	if s.Ref != "" {
		if err := plugins.ValidateRef(s.Ref); err != nil {
			return s, err.Error()
		}
	}
	return s, ""
}

// asciiJSON escapes every rune of compact JSON outside printable ASCII
// (they can only stand inside strings), so that the manifest is stored in
// the lock and the plugin folder as plain text that hides nothing.
func asciiJSON(data []byte) string {
	var b strings.Builder
	for _, r := range string(data) {
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// remoteURL says what is wrong with an entry's url, "" for nothing. An
// entry names a remote repository (https, http, ssh or host:path), never
// a file of this machine nor the org/repo shorthand, and carries its ref
// in the ref or sha field.
func remoteURL(raw string) string {
	spec, err := plugins.ParseSpec(raw, "", "/")
	switch {
	case err != nil:
		return "url: " + err.Error()
	case spec.IsLocal() || spec.Shorthand || spec.Subdir != "":
		return fmt.Sprintf("url %q is not a remote git URL (https://, ssh:// or host:path); a marketplace never names this machine's files", plugins.Redact(raw))
	case spec.Ref != "":
		return fmt.Sprintf("url %q ends in @%s; give the ref in the ref or sha field", plugins.Redact(raw), spec.Ref)
	}
	return ""
}

// Find returns the entry named name, following renames: the entry, the
// name it was found under (the new one after a rename), or an error
// saying why there is none (withdrawn, unknown, broken).
func (m *Marketplace) Find(name string) (Entry, string, error) {
	if to, ok := m.Renames[name]; ok {
		if to == "" {
			return Entry{}, "", fmt.Errorf("plugin %s was withdrawn from marketplace %s", name, m.Name)
		}
		name = to
	}
	for _, e := range m.Entries {
		if e.Name == name {
			if e.Problem != "" {
				return e, name, fmt.Errorf("marketplace %s: entry %s %s", m.Name, name, e.Problem)
			}
			return e, name, nil
		}
	}
	return Entry{}, "", fmt.Errorf("marketplace %s has no plugin %s; see quiver search --marketplace %s", m.Name, name, m.Name)
}

// Spec resolves an entry to what quiver fetches. A "path" entry is a
// folder of the marketplace repository itself: its spec is the
// marketplace's source at the marketplace's commit, as its checkout was
// made (by the user's marketplace add, or from the lock through
// plugins.CheckFileSource). Any other entry names a repository of its own,
// read from marketplace.json, which strangers write: it must pass
// plugins.CheckFileSource before anything is fetched. base is
// QUIVER_GIT_BASE for github sources and for that check.
func (e Entry) Spec(mktSource, mktCommit, base string) (plugins.Spec, error) {
	var raw, field, ref string
	switch e.Source.Type {
	case "path":
		raw, ref = mktSource, mktCommit
	case "github":
		raw, field, ref = e.Source.Repo, "repo", cmp.Or(e.Source.SHA, e.Source.Ref)
	case "url", "git-subdir":
		raw, field, ref = e.Source.URL, "url", cmp.Or(e.Source.SHA, e.Source.Ref)
	default:
		return plugins.Spec{}, fmt.Errorf("entry %s: source type %q is not supported", e.Name, e.Source.Type)
	}
	if field != "" {
		if err := plugins.CheckFileSource(raw, base); err != nil {
			accept := "quiver plugin add " + plugins.Redact(raw)
			if e.Source.Path != "" {
				accept += " --path " + e.Source.Path
			}
			return plugins.Spec{}, fmt.Errorf("entry %s: %s %w: if you mean it, run %s yourself", e.Name, field, err, accept)
		}
	}
	spec, err := plugins.ParseSpec(raw, base, "/")
	if err != nil {
		return spec, fmt.Errorf("entry %s: %w", e.Name, err)
	}
	if e.Source.Type != "path" && spec.IsLocal() {
		return spec, fmt.Errorf("entry %s: %q is not a remote repository", e.Name, plugins.Redact(raw))
	}
	if ref != "" {
		if err := plugins.ValidateRef(ref); err != nil {
			return spec, fmt.Errorf("entry %s: %w", e.Name, err)
		}
	}
	spec.Ref = ref
	if err := spec.SetSubdir(e.Source.Path); err != nil {
		return spec, fmt.Errorf("entry %s: %w", e.Name, err)
	}
	return spec, nil
}

// ReadDir reads the marketplace.json of a marketplace folder.
func ReadDir(dir string) (*Marketplace, error) {
	data, err := safefs.ReadFile(filepath.Join(dir, filepath.FromSlash(File)), MaxFile)
	if err != nil {
		if errors.Is(err, safefs.ErrTooLarge) {
			return nil, fmt.Errorf("%s is larger than %s", File, safefs.Size(MaxFile))
		}
		return nil, err
	}
	return Parse(data)
}
