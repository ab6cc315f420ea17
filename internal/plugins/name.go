package plugins

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidName is wrapped by every error about a malformed plugin name.
var ErrInvalidName = errors.New("invalid plugin name")

// validOrg reports whether org matches SPEC §3's ^[a-z0-9][a-z0-9-]{0,38}$.
// The patterns are spelled out rather than compiled: every process start
// would pay for the regexps, and discovery checks every folder name.
func validOrg(org string) bool {
	if len(org) == 0 || len(org) > 39 || org[0] == '-' {
		return false
	}
	for i := 0; i < len(org); i++ {
		if c := org[i]; !lowerOrDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

// validRepo reports whether repo matches SPEC §3's ^[a-z0-9_.-]{1,100}$.
func validRepo(repo string) bool {
	if len(repo) == 0 || len(repo) > 100 {
		return false
	}
	for i := 0; i < len(repo); i++ {
		if c := repo[i]; !lowerOrDigit(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func lowerOrDigit(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// Name is a validated plugin name, org/repo, always lowercase. The zero Name
// is not valid; obtain one from ParseName or NewName.
type Name struct {
	org, repo string
}

// NewName validates org and repo (after lowercasing them) and returns the name.
func NewName(org, repo string) (Name, error) {
	// Check ASCII first: Unicode lowercasing turns some letters (the Kelvin
	// sign, a dotted capital I) into ASCII ones, and the name would then
	// differ from what was typed.
	for _, s := range []string{org, repo} {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return Name{}, fmt.Errorf("%w %q: only ASCII letters, digits and - _ . are allowed", ErrInvalidName, org+"/"+repo)
			}
		}
	}
	org, repo = strings.ToLower(org), strings.ToLower(repo)
	if !validOrg(org) {
		return Name{}, fmt.Errorf("%w %q: org must be 1-39 letters, digits or hyphens, starting with a letter or digit", ErrInvalidName, org+"/"+repo)
	}
	if !validRepo(repo) || strings.HasPrefix(repo, ".") {
		return Name{}, fmt.Errorf("%w %q: repo must be 1-100 letters, digits, '_', '.' or '-', not starting with '.'", ErrInvalidName, org+"/"+repo)
	}
	return Name{org: org, repo: repo}, nil
}

// ParseName accepts "org/repo" or the folder form "org@repo" and validates it
// (SPEC §3). Nothing else is accepted: no extra segments, no path tricks.
func ParseName(s string) (Name, error) {
	sep := strings.IndexAny(s, "/@")
	if sep < 0 || strings.Count(s, "/")+strings.Count(s, "@") != 1 {
		return Name{}, fmt.Errorf("%w %q: want org/repo", ErrInvalidName, s)
	}
	return NewName(s[:sep], s[sep+1:])
}

// ParseNames parses every name before anything else happens, keeping
// each once, in the order given.
func ParseNames(raw []string) ([]Name, error) {
	var names []Name
	seen := map[Name]bool{}
	for _, r := range raw {
		n, err := ParseName(r)
		if err != nil {
			return nil, err
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names, nil
}

// Org returns the organisation part of the name.
func (n Name) Org() string { return n.org }

// Repo returns the repository part of the name.
func (n Name) Repo() string { return n.repo }

// String returns the name as users write it: org/repo.
func (n Name) String() string { return n.org + "/" + n.repo }

// Dir returns the folder name of the plugin inside plugins/: org@repo.
func (n Name) Dir() string { return n.org + "@" + n.repo }

// IsZero reports whether n is the zero Name.
func (n Name) IsZero() bool { return n.org == "" }
