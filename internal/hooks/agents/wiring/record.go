package wiring

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// RecordFile is the name of the record in a scope's root.
const RecordFile = "agents.yaml"

// Record is a scope's agents.yaml: which agents quiver is wired into and
// what it made in their files, so that it changes and removes only that.
type Record struct {
	Version int                     `yaml:"version"`
	Agents  map[string]*AgentRecord `yaml:"agents"`
	// Dirs are the folders quiver created for the agents (relative to
	// the project, or the home folder, that the agents' paths start
	// from): removed again once nothing is left in them (dirs.go).
	Dirs []string `yaml:"dirs,omitempty"`
}

// AgentRecord is what quiver made for one agent.
type AgentRecord struct {
	// Config is the configuration file quiver wrote (for people; quiver
	// computes the path itself and never takes it from here).
	Config string `yaml:"config"`
	// Command is the quiver the agent calls; AllowRewrites is whether
	// its command carries --allow-rewrites.
	Command       string `yaml:"command"`
	AllowRewrites bool   `yaml:"allow_rewrites,omitempty"`
	// Created lists the keys quiver added to the file (dotted paths);
	// CreatedFile says quiver created the file itself.
	Created     []string `yaml:"created,omitempty"`
	CreatedFile bool     `yaml:"created_file,omitempty"`
	// Hash names the configuration quiver generated whole, for an agent
	// whose hooks are a program quiver writes (OpenCode's plugin): quiver
	// replaces or removes that file only while it still hashes so.
	Hash string `yaml:"hash,omitempty"`
	// Native are the handlers the agent runs itself that quiver wrote
	// into the configuration (Claude Code's prompt, agent and mcp_tool
	// matcher groups, SPEC §15), each by its array and the hash of what
	// quiver wrote: nothing in them says they are quiver's, so quiver
	// changes or removes only an element that still hashes so.
	Native []Owned `yaml:"native,omitempty"`
	// Links are the skill and recipe links quiver keeps for the agent.
	Links []Link `yaml:"links,omitempty"`
	// Files are the agent's other files in which quiver keeps named
	// members (MCP servers; Claude Code's plugin route), by path.
	Files []FileRecord `yaml:"files,omitempty"`
	// Missed says what of the plugins did not reach the agent, and why,
	// for agent list (SPEC §16).
	Missed []string `yaml:"missed,omitempty"`
}

// FileRecord is what quiver keeps in one file of an agent's, beside its
// hook entries.
type FileRecord struct {
	// Path is absolute; quiver acts on it only while the agent's adapter
	// still names it for the scope.
	Path        string   `yaml:"path"`
	Members     []Owned  `yaml:"members,omitempty"`
	Created     []string `yaml:"created,omitempty"`
	CreatedFile bool     `yaml:"created_file,omitempty"`
}

// File returns the record of path, nil when there is none.
func (a *AgentRecord) File(path string) *FileRecord {
	for i := range a.Files {
		if a.Files[i].Path == path {
			return &a.Files[i]
		}
	}
	return nil
}

// Link is one symbolic link, or one copy, quiver made in an agent's
// folder.
type Link struct {
	// Path is the link, relative to the folder the agent's paths start
	// from (the project, or the home folder): ".claude/skills/review".
	Path string `yaml:"path"`
	// Target is what the link points at, as written in the link; ""
	// for a copy.
	Target string `yaml:"target,omitempty"`
	// Hash is the content hash of a copy as quiver wrote it (copies.go).
	Hash string `yaml:"hash,omitempty"`
	// Item is the quiver item it shows.
	Item string `yaml:"item"`
}

const maxRecord = 1 << 20

// ReadRecord reads a scope's agents.yaml; a missing file is an empty
// record. The file may have come with a repository: every link path is
// checked (relative, no "..") before anything uses it, and one that fails
// the check is dropped (never acted on).
func ReadRecord(path string) (*Record, error) {
	r := &Record{Version: 1, Agents: map[string]*AgentRecord{}}
	data, err := safefs.ReadFile(path, maxRecord)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("read %s: %v", path, err)
	}
	if r.Agents == nil {
		r.Agents = map[string]*AgentRecord{}
	}
	for name, a := range r.Agents {
		if a == nil {
			delete(r.Agents, name)
			continue
		}
		kept := a.Links[:0]
		for _, l := range a.Links {
			if _, err := safefs.RelPath(l.Path); err == nil && (l.Target != "") != (l.Hash != "") {
				kept = append(kept, l)
			}
		}
		a.Links = kept
		files := a.Files[:0]
		for _, f := range a.Files {
			if filepath.IsAbs(f.Path) && filepath.Clean(f.Path) == f.Path {
				files = append(files, f)
			}
		}
		a.Files = files
	}
	return r, nil
}

// Write replaces path with the record, atomically; an empty record
// removes the file.
func (r *Record) Write(path string) error {
	if len(r.Agents) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	for _, a := range r.Agents {
		sort.Slice(a.Links, func(i, j int) bool { return a.Links[i].Path < a.Links[j].Path })
		sort.Slice(a.Files, func(i, j int) bool { return a.Files[i].Path < a.Files[j].Path })
	}
	var buf bytes.Buffer
	buf.WriteString("# agents.yaml: written by quiver; what it added to agents' configuration and folders\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	r.Version = 1
	if err := enc.Encode(r); err != nil {
		return err
	}
	enc.Close()
	return plugins.WriteFileAtomic(path, buf.Bytes(), 0o644)
}

// Names returns the wired agents' names, sorted.
func (r *Record) Names() []string {
	names := make([]string, 0, len(r.Agents))
	for n := range r.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
