package wiring

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// A view is a copy of a plugin folder as an agent's own plugin loader
// should see it: some files left out (its hook configuration, which runs
// through quiver), some generated (a manifest without hooks). Views live
// in quiver's machine folder, never in the agent's or the project's.

// ViewHash is the hash a view of src would have: what WriteView returns,
// computed without writing, so that an unchanged view is left alone.
func ViewHash(src string, skip func(rel string) bool, generated map[string][]byte) (string, error) {
	files, err := viewFiles(src, skip)
	if err != nil {
		return "", err
	}
	return viewSum(files, generated)
}

func viewFiles(src string, skip func(rel string) bool) ([]treeFile, error) {
	all, err := treeFiles(src, src, viewBounds)
	if err != nil {
		return nil, err
	}
	kept := all[:0]
	for _, f := range all {
		if !skip(filepath.ToSlash(f.rel)) {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

func viewSum(files []treeFile, generated map[string][]byte) (string, error) {
	sum, err := hashFiles(files)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(sum))
	names := make([]string, 0, len(generated))
	for n := range generated {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g := sha256.Sum256(generated[n])
		fmt.Fprintf(h, "%s\x00%x\n", n, g)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// WriteView writes the view of src at dst, replacing what is there: the
// files of src for which skip is false (links inside src followed, links
// out of it dropped), then the generated files (slash-separated paths).
// It is staged beside dst and renamed into place, so the agent never
// reads half a plugin.
func WriteView(src, dst string, skip func(rel string) bool, generated map[string][]byte) (string, error) {
	files, err := viewFiles(src, skip)
	if err != nil {
		return "", err
	}
	sum, err := viewSum(files, generated)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	var b [6]byte
	rand.Read(b[:])
	stage := filepath.Join(filepath.Dir(dst), ".quiver-stage-"+hex.EncodeToString(b[:]))
	fail := func(err error) (string, error) {
		os.RemoveAll(stage)
		return "", err
	}
	if err := os.Mkdir(stage, 0o755); err != nil {
		return "", err
	}
	for _, f := range files {
		to := filepath.Join(stage, f.rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fail(err)
		}
		if err := copyOne(f.path, to, f.mode); err != nil {
			return fail(err)
		}
	}
	for rel, data := range generated {
		to := filepath.Join(stage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return fail(err)
		}
	}
	old := stage + ".old"
	if err := os.Rename(dst, old); err != nil && !os.IsNotExist(err) {
		return fail(err)
	}
	if err := os.Rename(stage, dst); err != nil {
		os.Rename(old, dst)
		return fail(err)
	}
	os.RemoveAll(old)
	return sum, nil
}
