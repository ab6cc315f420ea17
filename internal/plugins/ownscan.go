package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// OwnFolders are the folders of a scope's own items (SPEC §1: standalone
// hooks, skills and recipes), which no plugin install brings and so no
// install scans.
var OwnFolders = []string{"hooks", "skills", "recipes"}

// ScanOwn scans what scope s hands agents that is not a plugin's: its own
// hooks, skills and recipes and the plugin settings of its config.yaml
// (SPEC §17). A project's come with its repository, and quiver copies
// them into the agents once it is trusted, so they are scanned like a
// plugin, whoever wrote them. Findings name files relative to s.Root.
func ScanOwn(s Scope) (scan.Report, error) {
	var rep scan.Report
	for _, dir := range OwnFolders {
		full := filepath.Join(s.Root, dir)
		fi, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return rep, err
		}
		if !fi.IsDir() {
			continue // a link or a file: discovery reads no items there
		}
		one, err := scan.Dir(full, 0)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", dir, err)
		}
		rep.Files += one.Files
		rep.Binary += one.Binary
		for _, f := range one.Findings {
			f.File = dir + "/" + f.File
			rep.Findings = append(rep.Findings, f)
		}
	}
	data, err := safefs.ReadFileNoFollow(s.ConfigPath(), scan.MaxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return rep, fmt.Errorf("%s: %w", filepath.Base(s.ConfigPath()), err)
	default:
		rep.Files++
		rep.Findings = append(rep.Findings, scan.Text(filepath.Base(s.ConfigPath()), data)...)
	}
	slices.SortStableFunc(rep.Findings, func(a, b scan.Finding) int { return strings.Compare(a.File, b.File) })
	return rep, nil
}
