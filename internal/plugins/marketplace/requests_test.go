package marketplace

import (
	"errors"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

func TestAddOptionsCheck(t *testing.T) {
	tests := []struct {
		o       AddOptions
		n       int
		wantErr string
	}{
		{AddOptions{}, 3, ""},
		{AddOptions{Ref: "v1"}, 1, ""},
		{AddOptions{Ref: "v1"}, 2, "--ref and --name apply to a single spec"},
		{AddOptions{Name: "a/b"}, 2, "--ref and --name apply to a single spec"},
		{AddOptions{Path: "x"}, 2, "--path applies to a single spec"},
		{AddOptions{Ref: "-bad"}, 1, "-bad"},
	}
	for _, tt := range tests {
		err := tt.o.Check(tt.n)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%+v x%d: %v", tt.o, tt.n, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, plugins.ErrUsage) {
			t.Errorf("%+v x%d: got %v, want a usage error with %q", tt.o, tt.n, err, tt.wantErr)
		}
	}
}

func TestRequests(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Layout: plugins.NewLayout(dir, t.TempDir()), GitBase: "https://git.example.com"}
	warn := func(msg string) { t.Errorf("unexpected warning %q", msg) }

	reqs, err := s.Requests([]string{"acme/guard", "acme/tools/plugins/lint"}, AddOptions{Force: true}, dir, warn)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Name.String() != "acme/guard" || !reqs[0].Force || reqs[0].FolderName {
		t.Errorf("first request: %+v", reqs)
	}
	if !reqs[1].FolderName || reqs[1].Spec.Subdir != "plugins/lint" {
		t.Errorf("a subfolder names itself: %+v", reqs[1])
	}

	reqs, err = s.Requests([]string{"acme/tools"}, AddOptions{Name: "me/x", Path: "plugins/lint"}, dir, warn)
	if err != nil || reqs[0].FolderName || reqs[0].Name.String() != "me/x" {
		t.Errorf("--name keeps its name: %+v %v", reqs, err)
	}

	for _, tt := range []struct {
		raws  []string
		o     AddOptions
		want  string
		usage bool
	}{
		{[]string{"acme/guard", "acme/guard"}, AddOptions{}, "plugin acme/guard is named twice", true},
		{[]string{"acme/guard@v1"}, AddOptions{Ref: "v2"}, "give the ref once", true},
		{[]string{"acme/tools/sub"}, AddOptions{Path: "other"}, "give the folder once", true},
		{[]string{"acme/guard"}, AddOptions{Link: true}, "--link needs a local folder", true},
		{[]string{"./nowhere"}, AddOptions{}, "no such folder", false},
		{[]string{"nothing@nowhere"}, AddOptions{}, "nowhere", false},
	} {
		_, err := s.Requests(tt.raws, tt.o, dir, warn)
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, plugins.ErrUsage) != tt.usage {
			t.Errorf("%q %+v: got %v, want %q (usage %v)", tt.raws, tt.o, err, tt.want, tt.usage)
		}
	}
}

func TestRows(t *testing.T) {
	l := Listing{Name: "tools", Location: "global", Source: "https://x/y", Commit: "4f1c2ab9999", Plugins: 3}
	if got, want := strings.Join(l.Row(), "|"), "tools|global|https://x/y|4f1c2ab|3"; got != want {
		t.Errorf("Row: %q, want %q", got, want)
	}
	if got, want := l.Added(), "Added marketplace tools globally (4f1c2ab): 3 plugins; find them with quiver search --marketplace tools"; got != want {
		t.Errorf("Added: %q, want %q", got, want)
	}
	missing := Listing{Name: "m", Location: "local", Missing: true}
	if got, want := strings.Join(missing.Row(), "|"), "m|local||-|missing (quiver plugin install restores it)"; got != want {
		t.Errorf("missing Row: %q, want %q", got, want)
	}
	copied := Listing{Name: "m", Location: "local", Plugins: 1}
	if got := copied.Added(); !strings.Contains(got, "in the project (copied)") {
		t.Errorf("copied Added: %q", got)
	}
	broken := Listing{Name: "m", Location: "local", Error: "bad json"}
	if got := broken.Row()[4]; got != "error: bad json" {
		t.Errorf("broken Row: %q", got)
	}

	f := Found{Name: "a@b", Description: strings.Repeat("word ", 20), Installable: true}
	row := f.Row()
	if row[1] != "-" || row[3] != "-" || len([]rune(row[2])) != 70 || !strings.HasSuffix(row[2], "…") {
		t.Errorf("Found Row: %q", row)
	}
	f = Found{Name: "a@b", Version: "1.0", Installed: "local", Reason: "no source"}
	if got, want := strings.Join(f.Row(), "|"), "a@b|1.0|(cannot be installed: no source)|local"; got != want {
		t.Errorf("Found Row: %q, want %q", got, want)
	}
	if got := Truncate("a\n  b", 10); got != "a b" {
		t.Errorf("Truncate: %q", got)
	}
}
