package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// A journal records, beside the plugins, the change a mutating command is
// about to make, so that a command killed at any point can be completed or
// rolled back by the next one (SPEC §6). It is written before the first
// rename and removed after the lock file is written.
type journal struct {
	Op       string     `json:"op"`
	Stage    string     `json:"stage"`
	Backup   string     `json:"backup,omitempty"`
	Entry    *LockEntry `json:"entry,omitempty"`
	KeepData bool       `json:"keep_data,omitempty"`
}

const (
	opInstall = "install"
	opRemove  = "remove"

	journalPrefix = ".txn-"
	journalSuffix = ".json"
)

func (in *Installer) journalPath(n Name) string {
	return filepath.Join(in.Scope.PluginsDir(), journalPrefix+n.Dir()+journalSuffix)
}

func (in *Installer) writeJournal(n Name, j journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return WriteFileAtomic(in.journalPath(n), data, 0o644)
}

func (in *Installer) removeJournal(n Name) {
	os.Remove(in.journalPath(n))
}

// recover finishes or undoes what interrupted commands left: an install
// whose new folder is in place gets its lock entry; one that never reached
// the swap is dropped; a remove whose folder is gone loses its entry. Then
// every staging, backup and trash entry is deleted.
func (in *Installer) recover() error {
	dir := in.Scope.PluginsDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var stray []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, journalPrefix) && strings.HasSuffix(name, journalSuffix):
			n, err := ParseName(strings.TrimSuffix(strings.TrimPrefix(name, journalPrefix), journalSuffix))
			if err != nil {
				stray = append(stray, name)
				continue
			}
			if err := in.replay(n); err != nil {
				return err
			}
		case strings.HasPrefix(name, ".stage-"), strings.HasPrefix(name, ".backup-"), strings.HasPrefix(name, ".trash-"),
			strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-"): // an interrupted journal write
			stray = append(stray, name)
		}
	}
	for _, name := range stray {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err != nil {
			continue // replay already removed it
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		in.notify(fmt.Sprintf("removed leftover %s", p))
	}
	// Temp files of an interrupted lock file write.
	tmps, _ := filepath.Glob(filepath.Join(in.Scope.Root, ".quiver.lock.tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return err
	}
	if changed, err := in.repairMarketplaces(lock); err != nil {
		return err
	} else if changed {
		return WriteLock(in.Scope.LockPath(), lock)
	}
	return nil
}

// check validates a journal read from disk before any of its names is
// joined to a path: a journal is a file in a folder that a repository may
// have committed, so it is other people's input like any other.
func (j journal) check(n Name) error {
	var stage string
	switch j.Op {
	case opInstall:
		stage = ".stage-"
	case opRemove:
		stage = ".trash-"
	default:
		return fmt.Errorf("unknown operation %q", j.Op)
	}
	own := func(field, value, kind string) error {
		if err := safefs.Name(value); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		if !strings.HasPrefix(value, kind+n.Dir()+"-") {
			return fmt.Errorf("%s %q is not a %s folder of %s", field, value, strings.Trim(kind, ".-"), n)
		}
		return nil
	}
	if err := own("stage", j.Stage, stage); err != nil {
		return err
	}
	if j.Backup != "" {
		if err := own("backup", j.Backup, ".backup-"); err != nil {
			return err
		}
	}
	if j.Entry != nil && j.Entry.Source == "" {
		return errors.New("entry has no source")
	}
	return nil
}

func (in *Installer) replay(n Name) error {
	data, err := safefs.ReadFile(in.journalPath(n), safefs.MaxMeta)
	var j journal
	if err == nil {
		err = json.Unmarshal(data, &j)
	}
	if err == nil {
		err = j.check(n)
	}
	if err != nil {
		// quiver writes a journal atomically before its first rename, so
		// one that cannot be read or does not check out is not a record
		// of anything quiver did: drop it, touching nothing it names.
		os.RemoveAll(in.journalPath(n))
		in.notify(fmt.Sprintf("ignored and removed %s: %v", in.journalPath(n), err))
		return nil
	}
	dir := in.Scope.PluginsDir()
	final := in.Scope.PluginDir(n)
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return err
	}
	switch j.Op {
	case opInstall:
		_, finalErr := os.Lstat(final)
		if j.Backup != "" && errors.Is(finalErr, fs.ErrNotExist) {
			// Killed between the two renames of a fallback replace.
			if err := os.Rename(filepath.Join(dir, j.Backup), final); err == nil {
				in.notify(fmt.Sprintf("restored %s after an interrupted replace", n))
			}
		}
		if j.Entry != nil && matchesEntry(final, *j.Entry) {
			if cur, ok := lock.Plugins[n.String()]; !ok || cur != *j.Entry {
				lock.Plugins[n.String()] = *j.Entry
				if err := WriteLock(in.Scope.LockPath(), lock); err != nil {
					return err
				}
				in.notify(fmt.Sprintf("completed an interrupted install of %s", n))
			}
		} else {
			in.notify(fmt.Sprintf("rolled back an interrupted install of %s", n))
		}
	case opRemove:
		// quiver renames the plugin to its trash folder right after
		// writing the journal and deletes that folder last, so a remove
		// to complete always has it. A journal without one is not a
		// record of anything quiver did (a committed file, say, in a
		// fresh clone whose plugins are not installed yet): it must not
		// drop lock entries or delete data kept with --keep-data.
		_, trashErr := os.Lstat(filepath.Join(dir, j.Stage))
		if _, err := os.Lstat(final); errors.Is(err, fs.ErrNotExist) && trashErr == nil {
			if _, ok := lock.Plugins[n.String()]; ok {
				delete(lock.Plugins, n.String())
				if err := WriteLock(in.Scope.LockPath(), lock); err != nil {
					return err
				}
			}
			if !j.KeepData {
				os.RemoveAll(in.Scope.DataDir(n))
			}
			in.notify(fmt.Sprintf("completed an interrupted remove of %s", n))
		}
	}
	for _, p := range []string{j.Stage, j.Backup} {
		if p != "" {
			os.RemoveAll(filepath.Join(dir, p))
		}
	}
	in.removeJournal(n)
	return nil
}

// matchesEntry reports whether the folder at path is the install the entry
// describes.
func matchesEntry(path string, e LockEntry) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if e.Link {
		target, err := os.Readlink(path)
		return fi.Mode()&fs.ModeSymlink != 0 && err == nil && target == e.Source
	}
	d, err := HashDir(path)
	return err == nil && d.Sum == e.Hash
}

func (in *Installer) notify(msg string) {
	if in.OnRecover != nil {
		in.OnRecover(msg)
	}
}
