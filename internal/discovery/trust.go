package discovery

import (
	"fmt"
	"os"
	"slices"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TrustFile is the name of the trust store in the global root.
const TrustFile = "trust.yaml"

// ProjectHook is one file that counts as a project hook for trust: every
// non-hidden file directly in .quiver/hooks/ or in the hooks/ of a local
// plugin, executable or not (making one executable is a change).
type ProjectHook struct {
	Name string // full item name, as hook list shows it
	Path string
	// Escape says why the hook is invalid when it resolves (through a
	// symlink) to a file outside its plugin or the scope's .quiver
	// folder: the fingerprint could not cover what would run.
	Escape string
	// Disabled: the hook's plugin is disabled (the lock file says so).
	// Enabling it is a change the user must review, like a new file.
	Disabled bool
	// Root is set for the other files of a source with hooks (Trust.Files):
	// the plugin's folder, or the scope's for standalone hooks.
	Root string
	// Linked: the file itself is a symlink, so what it holds may change
	// in a folder no watch covers (a Session stats it at every call).
	Linked bool
}

// Trust is the trust state of a project.
type Trust struct {
	// Project is the project directory the record is keyed by.
	Project string
	// Hooks are the project's hooks, by path.
	Hooks []ProjectHook
	// Files are the other files those hooks may run or load: every
	// file of a project plugin that has hooks (its lib/, a Python
	// package beside a hook, the scripts of a hooks.json) and everything
	// under .quiver/hooks/ (subfolders, hidden files). The fingerprint
	// covers them too; one that escapes its folder makes all of that
	// source's hooks invalid.
	Files []ProjectHook
	// Replaces names the project's plugins that shadow the user's global
	// install of the same plugin as a whole: even without hooks of their
	// own, they switch the user's global hooks off, so that is the
	// repository's choice to review like a hook.
	Replaces []string
	// Shadows names the user's global standalone hooks that a project
	// hook of the same name switches off once trusted: trust says so,
	// since that changes what the user's own set does here.
	Shadows []string
	// Fingerprint covers what runs: path, exec bit and content of every
	// project hook and of the files beside it, and Replaces; "" when the
	// project has none (see fingerprint.go).
	Fingerprint string
	// State covers what decides what the next command installs: the
	// lock's plugins and marketplaces and the marketplace checkouts. Set
	// by ProjectTrust only (a hook run does not need it).
	State string
	// Recorded and RecordedState are the trusted record's fingerprints
	// ("" if none); HasRecord says whether there is one.
	Recorded, RecordedState string
	HasRecord               bool
	// All is set by QUIVER_TRUST_ALL=1.
	All bool
	// Items are the project's hook items as hook list names them (set
	// by ProjectTrust, not on a hook run's path).
	Items []ProjectItem

	// record is the trusted record as read, so that a write can check
	// that nobody changed it meanwhile.
	record trustRecord
	// parts are the lines Fingerprint and State were computed from, for
	// RenewTrust (set by ProjectTrust).
	parts []trustPart
	// walked are the folders the listing of Files read (resolved), which
	// a Session watches: a file added to any of them changes the
	// fingerprint.
	walked []string
}

// Trusted reports whether the project's hooks may be queried and run: the
// user trusts everything, or the project has no hooks, or they are exactly
// the ones the user reviewed.
func (t Trust) Trusted() bool {
	return t.All || t.Empty() || (t.Recorded != "" && t.Recorded == t.Fingerprint)
}

// Empty reports a project with nothing to trust: no project hooks, no
// plugin that replaces a global one, and nothing else of the project's
// that reaches an agent (a plugin, its own skills or recipes).
func (t Trust) Empty() bool { return len(t.Hooks) == 0 && len(t.Replaces) == 0 && len(t.Files) == 0 }

// Matched reports whether the project is as its trusted record says, what
// runs and what the next command would install alike, or has no record and
// nothing that runs (a fresh project, or a clone none of whose hooks is
// installed). Only then may a user's command renew trust (SPEC §9: a pull
// is not a trust). Needs ProjectTrust.
func (t Trust) Matched() bool {
	if !t.HasRecord {
		return t.Empty()
	}
	return t.Recorded == t.Fingerprint && t.RecordedState == t.State
}

// loadTrust computes the project's trust state from the sources of both
// scopes (global plugins shadowed by a local install are marked). When
// nothing hangs on the record (an empty project, or all trusted), it is
// only read if withRecord asks for it: hook runs skip the read.
func loadTrust(l plugins.Layout, srcs []source, all, withRecord bool) (Trust, error) {
	t := Trust{Project: l.ProjectDir, All: all}
	t.Hooks, t.Files, t.walked = projectHooks(srcs)
	if l.Local != nil {
		// The project's plugin settings decide what its servers are
		// given: trust covers them like the servers themselves.
		if fi, err := os.Lstat(l.Local.ConfigPath()); err == nil {
			if !fi.Mode().IsRegular() {
				t.Files = append(t.Files, ProjectHook{Name: "config.yaml", Path: l.Local.ConfigPath(), Root: l.Local.Root, Escape: "config.yaml is not a regular file"})
			} else {
				t.Files = append(t.Files, ProjectHook{Name: "config.yaml", Path: l.Local.ConfigPath(), Root: l.Local.Root})
			}
		}
	}
	local := map[string]bool{}
	for _, s := range srcs {
		if s.shadowedBy != "" {
			t.Replaces = append(t.Replaces, s.plugin.String())
		}
		if s.project && s.plugin.IsZero() {
			for _, it := range s.contents.Hooks {
				local[it.Name] = true
			}
			// A project hooks.json's handlers take the names of the
			// global one's (hooks.json/PreToolUse.1): it replaces them.
			for _, hf := range s.contents.HookFiles {
				local[hf.Name] = true
			}
		}
	}
	for _, s := range srcs {
		if !s.project && s.plugin.IsZero() {
			for _, it := range s.contents.Hooks {
				if local[it.Name] {
					t.Shadows = append(t.Shadows, it.Name)
				}
			}
			for _, hf := range s.contents.HookFiles {
				if local[hf.Name] {
					t.Shadows = append(t.Shadows, hf.Name)
				}
			}
		}
	}
	if l.Local == nil || ((t.Empty() || all) && !withRecord) {
		return t, nil
	}
	ts, err := readTrustStore(trustPath(l))
	if err != nil {
		return t, err
	}
	t.record, t.HasRecord = ts.Projects[l.ProjectDir]
	t.Recorded, t.RecordedState = t.record.Fingerprint, t.record.State
	if t.Recorded == "" && !withRecord {
		// Never trusted: nothing to compare with, so no hashing. An
		// untrusted repository's big files cost a hook run nothing.
		return t, nil
	}
	hc := loadHashCache(l)
	if !withRecord {
		// Hook runs keep the hashes; trust, and the snapshots of
		// commands about to change plugins, write nothing (see
		// scopeSources).
		defer hc.save()
	}
	var hooks []trustPart
	if !t.Empty() {
		if hooks, err = hooksParts(l.ProjectDir, t, hc); err != nil {
			return t, fmt.Errorf("fingerprint project hooks: %w", err)
		}
	}
	t.Fingerprint = hashParts(hooks)
	var lock *plugins.Lock
	if withRecord || t.legacy() {
		if lock, err = plugins.ReadLock(l.Local.LockPath()); err != nil {
			return t, err
		}
	}
	if withRecord {
		state, err := stateParts(*l.Local, lock)
		if err != nil {
			return t, fmt.Errorf("fingerprint the project's lock and marketplaces: %w", err)
		}
		t.State = hashParts(state)
		t.parts = slices.Concat(hooks, state)
	}
	if t.legacy() && hashParts(slices.Concat(lockParts(lock), hooks)) == t.Recorded {
		// A record of an earlier version, whose one fingerprint covered
		// the lock entries too: it holds for what it covered, and the
		// next record is written in the new shape.
		t.Recorded, t.RecordedState = t.Fingerprint, t.State
	}
	return t, nil
}

// legacy reports a record written before records had a state fingerprint.
func (t Trust) legacy() bool {
	return t.HasRecord && t.record.Version < recordVersion && t.record.State == "" && t.record.Fingerprint != ""
}

// ProjectTrust returns the trust state of the layout's project, with its
// record in the trust store and its hook items.
func ProjectTrust(l plugins.Layout, trustAll bool) (Trust, error) {
	srcs, err := sources(l, plugins.HookKind, false)
	if err != nil {
		return Trust{}, err
	}
	t, err := loadTrust(l, srcs, trustAll, true)
	t.Items = projectItems(l, srcs)
	return t, err
}

// ProjectItem is one hook item of the project, named as hook list names
// it: a native hook, or one handler of a hooks.json (a configuration that
// cannot be read is one item).
type ProjectItem struct {
	Name, Path string
	// Disabled: its plugin is disabled, so hook list shows it disabled
	// rather than untrusted.
	Disabled bool
}

// projectItems lists the project's hook items without running any of
// them, from the same scan and configurations discovery reads, so every
// count quiver prints is the one hook list --all shows.
func projectItems(l plugins.Layout, srcs []source) []ProjectItem {
	var out []ProjectItem
	cfgs := newCaches(hooksJSONCacheFile, jsonCodec[parsedConfig]())
	for _, s := range srcs {
		if !s.project {
			continue
		}
		for _, it := range s.contents.Hooks {
			out = append(out, ProjectItem{Name: ItemName(s.plugin, it.Name), Path: it.Path, Disabled: s.disabled})
		}
		for _, hf := range s.contents.HookFiles {
			for _, h := range claudeHooks(l, s, hf, cfgs) {
				out = append(out, ProjectItem{Name: h.Name, Path: h.Path, Disabled: s.disabled})
			}
		}
	}
	return out
}

// UntrustedCount is the number of hook items hook list shows untrusted
// while the project is not trusted: all but those of disabled plugins.
func (t Trust) UntrustedCount() int {
	n := 0
	for _, it := range t.Items {
		if !it.Disabled {
			n++
		}
	}
	return n
}
