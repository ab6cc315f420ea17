// Package marketplace reads Claude Code's marketplace format
// (.claude-plugin/marketplace.json, SPEC §12): a git repository that lists
// plugins with where to fetch each. It validates every entry as input from
// strangers (names, paths, source types), resolves an entry to what quiver
// fetches, and searches entries. Installing and the lock file stay in
// package plugins.
package marketplace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// File is where a marketplace repository keeps its index.
const File = ".claude-plugin/marketplace.json"

// MaxFile bounds marketplace.json: the official marketplace of about 300
// entries is 150 KiB, so this is room for tens of thousands.
const MaxFile = 8 << 20

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
	// Strict false: the entry's own component fields (Manifest) are the
	// plugin's manifest.
	Strict   bool            `json:"strict"`
	Manifest json.RawMessage `json:"-"`
	// Carries names what else the entry declares (MCP servers, agents...).
	Carries []string `json:"-"`
	Problem string   `json:"problem,omitempty"`
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

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Parse reads marketplace.json. The file as a whole must be JSON with a
// plugins list; each entry is checked on its own and one that breaks a
// rule carries its Problem. Names shared by several entries are a problem
// of each of them: which one is meant cannot be told.
func Parse(data []byte) (*Marketplace, error) {
	var raw struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Owner       struct {
			Name string `json:"name"`
		} `json:"owner"`
		Metadata struct {
			PluginRoot  string `json:"pluginRoot"`
			Description string `json:"description"`
		} `json:"metadata"`
		Plugins []json.RawMessage  `json:"plugins"`
		Renames map[string]*string `json:"renames"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", File, err)
	}
	if raw.Plugins == nil {
		return nil, fmt.Errorf("%s has no plugins list", File)
	}
	m := &Marketplace{Name: raw.Name, Description: firstOf(raw.Description, raw.Metadata.Description), Owner: raw.Owner.Name, Renames: map[string]string{}}
	if raw.Metadata.PluginRoot != "" {
		root, err := safefs.RelPath(raw.Metadata.PluginRoot)
		if err != nil {
			return nil, fmt.Errorf("%s: metadata.pluginRoot: %w", File, err)
		}
		m.PluginRoot = root
	}
	for old, to := range raw.Renames {
		if to == nil {
			m.Renames[old] = ""
		} else {
			m.Renames[old] = *to
		}
	}
	count := map[string]int{}
	for i, r := range raw.Plugins {
		e := parseEntry(r, m.PluginRoot)
		if e.Name == "" && e.Problem == "" {
			e.Problem = "has no name"
		}
		if e.Name == "" {
			e.Name = fmt.Sprintf("#%d", i+1)
		}
		count[e.Name]++
		m.Entries = append(m.Entries, e)
	}
	for i, e := range m.Entries {
		if count[e.Name] > 1 && e.Problem == "" {
			m.Entries[i].Problem = fmt.Sprintf("the name %s is used by %d entries", e.Name, count[e.Name])
		}
	}
	return m, nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// carried are the component fields quiver does not use, by what they are.
var carried = map[string]string{
	"mcpServers": "MCP servers", "lspServers": "LSP servers", "agents": "agents", "outputStyles": "output styles",
}

func parseEntry(r json.RawMessage, pluginRoot string) Entry {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r, &fields); err != nil {
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
				e.Problem = firstOf(e.Problem, key+" is not a list of strings")
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
			e.Problem = firstOf(e.Problem, "strict is not true or false")
		}
	}
	if !e.Strict {
		manifest := map[string]json.RawMessage{}
		for _, key := range []string{"commands", "skills", "hooks"} {
			if v, ok := fields[key]; ok {
				manifest[key] = v
			}
		}
		e.Manifest, _ = json.Marshal(manifest)
	}
	for key, what := range carried {
		if _, ok := fields[key]; ok {
			e.Carries = append(e.Carries, what)
		}
	}
	if e.Problem != "" {
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
		p := rel
		if !strings.HasPrefix(rel, "./") && pluginRoot != "" {
			p = pluginRoot + "/" + rel
		}
		if rel == "./" || rel == "." {
			return Source{Type: "path"}, ""
		}
		clean, err := safefs.RelPath(p)
		if err != nil {
			return Source{}, "source " + err.Error()
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
		if strings.Count(obj.Repo, "/") != 1 {
			return s, fmt.Sprintf("github source repo %q is not owner/repo", obj.Repo)
		}
		s.Repo = obj.Repo
	case "url", "git-subdir":
		if obj.URL == "" {
			return s, obj.Source + " source has no url"
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
	if s.SHA != "" && !fullSHA.MatchString(s.SHA) {
		return s, fmt.Sprintf("sha %q is not a 40-hex commit", s.SHA)
	}
	if s.Ref != "" {
		if err := plugins.ValidateRef(s.Ref); err != nil {
			return s, err.Error()
		}
	}
	return s, ""
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
// marketplace's source at the marketplace's commit. base is
// QUIVER_GIT_BASE for github sources.
func (e Entry) Spec(mktSource, mktCommit, base string) (plugins.Spec, error) {
	var raw, ref string
	switch e.Source.Type {
	case "path":
		raw, ref = mktSource, mktCommit
	case "github":
		raw, ref = e.Source.Repo, firstOf(e.Source.SHA, e.Source.Ref)
	case "url", "git-subdir":
		raw, ref = e.Source.URL, firstOf(e.Source.SHA, e.Source.Ref)
	default:
		return plugins.Spec{}, fmt.Errorf("entry %s: source type %q is not supported", e.Name, e.Source.Type)
	}
	spec, err := plugins.ParseSpec(raw, base, "/")
	if err != nil {
		return spec, fmt.Errorf("entry %s: %w", e.Name, err)
	}
	spec.Ref = ref
	if err := spec.SetSubdir(e.Source.Path); err != nil {
		return spec, fmt.Errorf("entry %s: %w", e.Name, err)
	}
	return spec, nil
}

// Matches reports whether every word of term occurs (case-insensitively)
// in the entry's name, description, category, keywords or tags.
func (e Entry) Matches(words []string) bool {
	if len(words) == 0 {
		return true
	}
	hay := strings.ToLower(strings.Join(append(append([]string{e.Name, e.Description, e.Category}, e.Keywords...), e.Tags...), "\x00"))
	for _, w := range words {
		if !strings.Contains(hay, strings.ToLower(w)) {
			return false
		}
	}
	return true
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
