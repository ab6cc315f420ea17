package agents

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// The rest of a plugin (SPEC §16): servers, subagents and commands reach
// each agent in its own format. An adapter plans what its agent gets
// (Plan); the transaction here merges that into the agent's files,
// records it and undoes it, the same way for every agent.

// Plan is what of the plugins' parts reaches one agent in one scope.
type Plan struct {
	// Files are the named members quiver keeps in the agent's files.
	Files []FileMembers
	// Routed are the plugins (by name) that reach the agent whole through
	// its own plugin loader: their skills and commands are not also
	// linked into the agent's folders (each item reaches an agent once).
	Routed map[string]bool
	// Missed says what did not reach the agent, and why.
	Missed []string
}

// FileMembers are the members quiver wants in one file, and how that
// file is written: JSON (with comments where the agent reads them), or
// TOML (Codex's config.toml), whose members are whole tables.
type FileMembers struct {
	Path    string
	Syntax  wiring.Syntax
	TOML    bool
	Members []wiring.Member
}

// add puts members into the plan's entry for path (its format is the
// one the adapter's partFiles gives it).
func (p *Plan) add(path string, m ...wiring.Member) {
	for i := range p.Files {
		if p.Files[i].Path == path {
			p.Files[i].Members = append(p.Files[i].Members, m...)
			return
		}
	}
	p.Files = append(p.Files, FileMembers{Path: path, Members: m})
}

// scopePlugins are the enabled plugins of the site's scope whose parts
// may reach an agent: a project's only while the project is trusted, and
// then as copies of what was trusted (SPEC §9, §16).
func scopePlugins(site Site, d Docs) []plugins.Plugin {
	if site.Scope.Location == plugins.Local && !d.Trusted {
		return nil
	}
	return d.Plugins[site.Scope.Location]
}

// syncParts makes the agent's files hold what plan says, and nothing else
// of quiver's: members quiver recorded in a file the plan no longer names
// are removed (while unchanged). Only files the adapter names for the
// site are ever touched, whatever the record says.
func (w *Wirer) syncParts(site Site, entry *wiring.AgentRecord, plan Plan) error {
	ag := site.Agent
	// The adapter says which files it may touch and how each is written,
	// whether or not the plan still names it: a file that no longer gets
	// members is emptied of quiver's in its own format.
	allowed := map[string]FileMembers{}
	if ag.hasPartFiles() {
		for _, f := range ag.partFilesOf(w, site) {
			allowed[f.Path] = FileMembers{Path: f.Path, Syntax: f.Syntax, TOML: f.TOML}
		}
	}
	want := map[string]FileMembers{}
	var paths []string
	for _, f := range plan.Files {
		a, ok := allowed[f.Path]
		if !ok {
			return fmt.Errorf("%s: quiver would write %s, which its adapter does not name", ag.Title, f.Path)
		}
		a.Members = append(want[f.Path].Members, f.Members...)
		want[f.Path] = a
		paths = append(paths, f.Path)
	}
	for _, f := range entry.Files {
		if _, ok := want[f.Path]; !ok {
			if a, ok := allowed[f.Path]; ok {
				want[f.Path] = a
				paths = append(paths, f.Path)
			}
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var kept []wiring.FileRecord
	var errs []error
	for _, path := range paths {
		prev := entry.File(path)
		var rec wiring.FileRecord
		if prev != nil {
			rec = *prev
		}
		rec.Path = path
		// Members in the agent's configuration, which quiver created for
		// its hooks: the file goes once nothing else is in it.
		rec.CreatedFile = rec.CreatedFile || (path == site.Config && entry.CreatedFile)
		r, err := w.syncFile(site, want[path], rec)
		if err != nil {
			errs = append(errs, err)
			if prev != nil {
				kept = append(kept, *prev)
			}
			continue
		}
		if len(r.Members) > 0 || len(r.Created) > 0 {
			kept = append(kept, r)
		}
	}
	entry.Files = kept
	if len(errs) > 0 {
		return fmt.Errorf("%s: %w", ag.Title, errs[0])
	}
	return nil
}

// syncFile applies one file's members, returning its new record.
func (w *Wirer) syncFile(site Site, f FileMembers, rec wiring.FileRecord) (wiring.FileRecord, error) {
	if err := w.checkFilePath(site, rec.Path); err != nil {
		return rec, err
	}
	if site.Scope.Location != plugins.Global && plugins.InsideRoot(rec.Path, w.Home) && !plugins.InsideRoot(rec.Path, site.Base) {
		// A file of the user's (Claude's ~/.claude/settings.json) that a
		// project's sync writes too: read and written under the user
		// scope's agents lock, which every sync of it holds, so that no
		// other project's or the user's own update is lost.
		unlock, err := w.lock(context.Background(), w.Site(site.Agent, true))
		if err != nil {
			return rec, err
		}
		defer unlock()
	}
	data, existed, err := ReadConfig(rec.Path)
	if err != nil {
		return rec, err
	}
	if !existed && len(f.Members) == 0 {
		return wiring.FileRecord{Path: rec.Path}, nil
	}
	createdFile := rec.CreatedFile || (!existed && len(rec.Members) == 0)
	if existed && len(rec.Members) == 0 && len(rec.Created) == 0 && !rec.CreatedFile && plugins.InsideRoot(rec.Path, site.Base) && site.Scope.Location == plugins.Local {
		// A project's file holding quiver's members that this machine
		// never recorded writing: a teammate's clone. What quiver would
		// have created there is inferred from the content, so that this
		// machine takes out the same as the author's does.
		rec.Created, createdFile = wiring.InferCreated(data, f.Syntax, f.TOML, f.Members)
	}
	var s wiring.MemberSync
	if f.TOML {
		s, err = wiring.SyncTOMLMembers(data, f.Members, rec.Members, createdFile)
	} else {
		s, err = wiring.SyncMembers(data, f.Syntax, f.Members, rec.Members, rec.Created, createdFile)
	}
	if err != nil {
		return rec, fmt.Errorf("%s: %w; it was left as it was", rec.Path, err)
	}
	for _, m := range s.Warnings {
		w.warn(fmt.Sprintf("quiver: %s: %s", rec.Path, m))
	}
	switch {
	case s.Delete:
		err = os.Remove(rec.Path)
	case s.Changed:
		err = writeOthers(rec.Path, s.Data)
	}
	if err != nil {
		return rec, fmt.Errorf("write %s: %w", rec.Path, err)
	}
	return wiring.FileRecord{Path: rec.Path, Members: s.Owned, Created: s.Created, CreatedFile: createdFile && !s.Delete}, nil
}

// checkFilePath refuses a file that is, or is reached through, a link,
// as CheckConfigPath does for the hook configuration: a repository may
// commit .cursor as a link to the user's home.
func (w *Wirer) checkFilePath(site Site, path string) error {
	for _, base := range []string{site.Base, w.Home} {
		if !plugins.InsideRoot(path, base) {
			continue
		}
		rel, _ := filepath.Rel(base, path)
		if err := wiring.SafeParents(base, rel, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file; quiver does not write through links", path)
		}
		return nil
	}
	return fmt.Errorf("%s is outside %s and %s", path, site.Base, w.Home)
}
