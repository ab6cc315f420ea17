// Package format reads what a plugin folder says, as data, without
// running anything: its manifests, hooks.json and its handlers, the
// frontmatter of skills and recipes, quiver's event names and how Claude
// Code's events map to them, and Claude's matcher and `if` languages
// (SPEC §3, §10, §11, §15). Discovery uses it to list and judge, hooks to
// run, and plugin validate is its Validate. Every function is pure over
// the files it is given.
package format

import (
	"fmt"
	"path/filepath"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// DocInfo is what a skill's SKILL.md or a recipe says.
type DocInfo struct {
	Frontmatter map[string]any
	Body        string
	Description string
	// Err is why the file could not be read or parsed (the item is then
	// invalid); Warnings are for authors (validate, doctor).
	Err      error
	Warnings []string
}

// ReadDoc reads a skill's SKILL.md (skill set) or a recipe at path;
// itemName is the name the item is listed under.
func ReadDoc(path, itemName string, skill bool) DocInfo {
	var d DocInfo
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err != nil {
		d.Err = err
		return d
	}
	fm, body, err := ParseFrontmatter(data)
	d.Frontmatter, d.Body = fm, body
	if err != nil {
		d.Err = err
		return d
	}
	d.Description = StringField(fm, "description")
	if !skill {
		return d
	}
	folder := filepath.Base(filepath.Dir(path))
	if fm == nil {
		d.Warnings = append(d.Warnings, "SKILL.md has no frontmatter (name, description)")
		return d
	}
	if d.Description == "" {
		d.Warnings = append(d.Warnings, "frontmatter has no description")
	}
	if n := StringField(fm, "name"); n != "" && n != folder {
		d.Warnings = append(d.Warnings, fmt.Sprintf("frontmatter name %q differs from the folder %q; it is listed as %q", n, folder, itemName))
	}
	return d
}
