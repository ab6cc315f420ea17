package plugins_test

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// validNames are accepted by ParseName; org and repo are what they become.
var validNames = []struct{ in, org, repo string }{
	{"acme/guard", "acme", "guard"},
	{"acme@guard", "acme", "guard"},
	{"Acme/Guard", "acme", "guard"},
	{"ACME@GUARD", "acme", "guard"},
	{"a/b", "a", "b"},
	{"0/0", "0", "0"},
	{"9lives/x", "9lives", "x"},
	{"my-org/r", "my-org", "r"},
	{"a--b/r", "a--b", "r"}, // the SPEC regexp allows double hyphens
	{"org-/r", "org-", "r"}, // and a trailing one
	{"acme/my_repo.v2-x", "acme", "my_repo.v2-x"},
	{"acme/a..b", "acme", "a..b"}, // one path element: ".." inside is harmless
	{"acme/repo.", "acme", "repo."},
	{"acme/-x", "acme", "-x"},
	{"acme/_", "acme", "_"},
	{strings.Repeat("o", 39) + "/r", strings.Repeat("o", 39), "r"},
	{"o/" + strings.Repeat("r", 100), "o", strings.Repeat("r", 100)},
	{strings.Repeat("A", 39) + "@" + strings.Repeat("B", 100), strings.Repeat("a", 39), strings.Repeat("b", 100)},
}

// invalidNames break one rule of SPEC §3 each, or try to escape plugins/.
var invalidNames = []string{
	"", "/", "@", "a/", "/b", "a@", "@b", "acme", "acme-guard",
	// more than one separator
	"a/b/c", "a@b@c", "a/b@c", "a@b/c", "org/repo/", "//", "@@",
	// traversal
	"../x", "a/../../b", "org@../x", "org/..", "org/.", "./x", "../..", "..@..",
	"org/.hidden", "org/.git", "org@.x",
	// org rules
	"-org/x", "org_x/y", "o.rg/y", "o+g/y", "~/x", strings.Repeat("o", 40) + "/r",
	// repo rules
	"o/" + strings.Repeat("r", 101), "o/r+s", "o/r:s", "o/r~", "o/r*",
	// separators from other systems
	`a\b/c`, `a/b\c`, `..\x/y`, "a:b/c", "c:/x",
	// control characters and spaces
	"a/b\x00", "a\x00/b", "a/b\n", "a\n/b", "a/b\r", "a /b", "a/ b", " a/b", "a/b ", "a\tb/c", "a/b\x7f",
	// non-ASCII
	"acmé/guard", "acme/güard", "ａcme/x", "acme/ｘ", "аcme/x" /* Cyrillic а */, "a/b\u200b", "a\u2215b", "a\uff0fb",
}

func TestParseNameValid(t *testing.T) {
	for _, tc := range validNames {
		t.Run(tc.in, func(t *testing.T) {
			n, err := plugins.ParseName(tc.in)
			if err != nil {
				t.Fatalf("ParseName(%q): %v", tc.in, err)
			}
			if n.Org() != tc.org || n.Repo() != tc.repo {
				t.Errorf("ParseName(%q) = %q, %q; want %q, %q", tc.in, n.Org(), n.Repo(), tc.org, tc.repo)
			}
			if got, want := n.String(), tc.org+"/"+tc.repo; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			if got, want := n.Dir(), tc.org+"@"+tc.repo; got != want {
				t.Errorf("Dir() = %q, want %q", got, want)
			}
			if n.IsZero() {
				t.Error("IsZero() = true for a parsed name")
			}
		})
	}
}

func TestParseNameInvalid(t *testing.T) {
	for _, in := range invalidNames {
		t.Run(in, func(t *testing.T) {
			n, err := plugins.ParseName(in)
			if err == nil {
				t.Fatalf("ParseName(%q) = %v, want an error", in, n)
			}
			if !errors.Is(err, plugins.ErrInvalidName) {
				t.Errorf("ParseName(%q) error %v does not wrap ErrInvalidName", in, err)
			}
			if !n.IsZero() {
				t.Errorf("ParseName(%q) returned %v with its error, want the zero Name", in, n)
			}
		})
	}
}

func TestNewName(t *testing.T) {
	tests := []struct {
		org, repo string
		want      string // "" means an error
	}{
		{"acme", "guard", "acme/guard"},
		{"Acme", "Guard", "acme/guard"},
		{"a", "b.c", "a/b.c"},
		// NewName takes the parts alone: separators inside either part are refused.
		{"a/b", "c", ""},
		{"a", "b/c", ""},
		{"a", "b@c", ""},
		{"a@b", "c", ""},
		{"", "x", ""},
		{"x", "", ""},
		{"..", "x", ""},
		{"x", "..", ""},
		{"x", ".", ""},
		{"x", ".x", ""},
		{"x", "a\x00", ""},
	}
	for _, tc := range tests {
		t.Run(tc.org+"|"+tc.repo, func(t *testing.T) {
			n, err := plugins.NewName(tc.org, tc.repo)
			if tc.want == "" {
				if err == nil || !errors.Is(err, plugins.ErrInvalidName) {
					t.Fatalf("NewName(%q, %q) = %v, %v; want ErrInvalidName", tc.org, tc.repo, n, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewName(%q, %q): %v", tc.org, tc.repo, err)
			}
			if n.String() != tc.want {
				t.Errorf("NewName(%q, %q) = %q, want %q", tc.org, tc.repo, n, tc.want)
			}
		})
	}
}

func TestZeroName(t *testing.T) {
	var n plugins.Name
	if !n.IsZero() {
		t.Error("the zero Name is not IsZero")
	}
	if _, err := plugins.ParseName(n.String()); err == nil {
		t.Errorf("the zero Name's String %q parses", n.String())
	}
}

// TestNameFolderStaysInside is the property every caller relies on: the
// folder of an accepted name is exactly one element directly inside the
// folder it is joined to, whatever the input looked like.
func TestNameFolderStaysInside(t *testing.T) {
	inputs := append([]string(nil), invalidNames...)
	for _, tc := range validNames {
		inputs = append(inputs, tc.in)
	}
	accepted := 0
	for _, in := range inputs {
		n, err := plugins.ParseName(in)
		if err != nil {
			continue
		}
		accepted++
		checkNameProperties(t, in, n)
	}
	if accepted != len(validNames) {
		t.Errorf("%d inputs accepted, want the %d valid names", accepted, len(validNames))
	}
}

// Non-ASCII letters whose lowercase is ASCII (the Kelvin sign, a dotted
// capital I) are refused, not folded into a different ASCII name.
func TestParseNameNonASCIIFolding(t *testing.T) {
	for _, in := range []string{"\u212Acme/guard", "\u0130x/y", "acme/\u212A"} {
		if n, err := plugins.ParseName(in); err == nil {
			t.Errorf("ParseName(%+q) = %v, want an error (non-ASCII input)", in, n)
		}
	}
}

var nameShape = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,38}/[a-z0-9_.-]{1,100}$`)

// checkNameProperties asserts what must hold for every accepted name.
func checkNameProperties(t *testing.T, in string, n plugins.Name) {
	t.Helper()
	root := filepath.FromSlash("/srv/quiver/plugins")
	joined := filepath.Join(root, n.Dir())
	if filepath.Dir(joined) != root || filepath.Base(joined) != n.Dir() {
		t.Errorf("ParseName(%q): Join(root, %q) = %q, not directly inside %q", in, n.Dir(), joined, root)
	}
	if !nameShape.MatchString(n.String()) || strings.HasPrefix(n.Repo(), ".") {
		t.Errorf("ParseName(%q) = %q, which does not have the SPEC §3 shape", in, n)
	}
	for _, s := range []string{n.String(), n.Dir()} {
		back, err := plugins.ParseName(s)
		if err != nil || back != n {
			t.Errorf("ParseName(%q) = %v, %v; want %v back (from input %q)", s, back, err, n, in)
		}
	}
	if !strings.EqualFold(strings.Replace(in, "@", "/", 1), n.String()) {
		t.Errorf("ParseName(%q) = %q, which is not the input up to case", in, n)
	}
}

func FuzzParseName(f *testing.F) {
	for _, tc := range validNames {
		f.Add(tc.in)
	}
	for _, in := range invalidNames {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := plugins.ParseName(in)
		if err != nil {
			if !errors.Is(err, plugins.ErrInvalidName) {
				t.Fatalf("ParseName(%q) error %v does not wrap ErrInvalidName", in, err)
			}
			if !n.IsZero() {
				t.Fatalf("ParseName(%q) returned %v with its error", in, n)
			}
			return
		}
		checkNameProperties(t, in, n)
	})
}

// TestParseNames: every name is checked before any is used, each kept
// once in the order given; one bad name is the error.
func TestParseNames(t *testing.T) {
	names, err := plugins.ParseNames([]string{"acme/guard", "acme@lint", "Acme/Guard"})
	if err != nil || len(names) != 2 || names[0].String() != "acme/guard" || names[1].String() != "acme/lint" {
		t.Errorf("ParseNames = %v, %v", names, err)
	}
	if _, err := plugins.ParseNames([]string{"acme/guard", "../x"}); !errors.Is(err, plugins.ErrInvalidName) {
		t.Errorf("a bad name: %v", err)
	}
}
