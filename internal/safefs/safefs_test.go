package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each hostile file must fail at once, naming the file: a test that hangs
// here is the bug.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink("fifo", fifoLink); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, kind string }{
		{fifo, "a named pipe"},
		{zero, "a device"},
		{fifoLink, "a named pipe"},
		{"/dev/zero", "a device"},
		{dir, "a folder"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ReadFile(tc.path, MaxMeta)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.kind) {
					t.Fatalf("ReadFile(%s) = %v; want ErrNotRegular naming the file and %q", tc.path, err, tc.kind)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFile(%s) hangs", tc.path)
			}
			if _, err := HashFile(tc.path, MaxContent); !errors.Is(err, ErrNotRegular) {
				t.Fatalf("HashFile(%s) = %v; want ErrNotRegular", tc.path, err)
			}
		})
	}
}

func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(p, 5); err != nil || string(data) != "12345" {
		t.Fatalf("at the limit: %q, %v", data, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 4 bytes") {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := HashFile(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("hash over the limit: %v", err)
	}
	if sum, err := HashFile(p, 5); err != nil || sum != "5994471abb01112afcc18159f6cc74b4f511b99806da59b3caf5a9c173cacfc5" {
		t.Fatalf("hash: %s, %v", sum, err)
	}
}

func TestOpenAppendRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "audit")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAppend(fifo, 0o600); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("OpenAppend(fifo) = %v", err)
	}
	p := filepath.Join(dir, "log")
	f, err := OpenAppend(p, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestRelPath(t *testing.T) {
	for in, want := range map[string]string{
		"plugins/x":   "plugins/x",
		"./plugins/x": "plugins/x",
		"a/b/":        "a/b",
		"x":           "x",
		".hidden":     ".hidden",
		"a..b":        "a..b",
	} {
		if got, err := RelPath(in); err != nil || got != want {
			t.Errorf("RelPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", ".", "./", "..", "../x", "a/../b", "a/..", "/etc", "a//b", `a\b`, "a/./b", "a\x00b", "a\nb"} {
		if got, err := RelPath(in); !errors.Is(err, ErrBadPath) {
			t.Errorf("RelPath(%q) = %q, %v; want ErrBadPath", in, got, err)
		}
	}
}

func TestName(t *testing.T) {
	for _, ok := range []string{".stage-acme@guard-0a1b", "x", "a..b"} {
		if err := Name(ok); err != nil {
			t.Errorf("Name(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", "/", "./x", "x/", `a\b`} {
		if err := Name(bad); !errors.Is(err, ErrBadPath) {
			t.Errorf("Name(%q) = %v; want ErrBadPath", bad, err)
		}
	}
}

// TestReadFileNoFollow: a link is refused even to a regular file, so a
// link swapped in after a caller's check cannot make quiver read (and
// then copy) what it points to.
func TestReadFileNoFollow(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"auths": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFileNoFollow(link, 1<<20); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("read through a link: %q, %v", data, err)
	}
	if data, err := ReadFileNoFollow(secret, 1<<20); err != nil || string(data) != `{"auths": {}}` {
		t.Errorf("a regular file: %q, %v", data, err)
	}
}

// Text from plugins reaches the terminal with control and invisible
// formatting characters escaped: a bidi override or a zero-width space
// cannot make one name look like another (second attack review, B11).
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"lint":                 "lint",
		"naïve ✓":              "naïve ✓",
		"li\u200bnt":           `li\u200bnt`,
		"fmt\u202ehs.kcehc":    `fmt\u202ehs.kcehc`,
		"a\u2066b\u2069":       `a\u2066b\u2069`,
		"x\u2028y":             `x\u2028y`,
		"\x1b[31mred\x1b[0m\n": `\x1b[31mred\x1b[0m\n`,
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// readSized takes a Stat's size as a hint only: a file that grew or shrank
// since is read whole, and the limit holds whatever the hint said.
func TestReadSizedHintIsOnlyAHint(t *testing.T) {
	for _, c := range []struct {
		data        string
		limit, size int64
		want        string
		tooLarge    bool
	}{
		{"12345", 10, 5, "12345", false},
		{"12345", 10, 2, "12345", false}, // grew after the Stat
		{"12345", 10, 9, "12345", false}, // shrank
		{"12345", 10, 0, "12345", false},
		{"", 10, 0, "", false},
		{"12345", 5, 5, "12345", false},
		{"12345", 4, 3, "", true}, // grew past the limit
		{"12345", 4, 5, "", true},
		{"12345", 4, -1, "", true},
		{"12345", 6, -1, "12345", false},
	} {
		got, err := readSized(strings.NewReader(c.data), "f", c.limit, c.size)
		if c.tooLarge != errors.Is(err, ErrTooLarge) || (!c.tooLarge && (err != nil || string(got) != c.want)) {
			t.Errorf("readSized(%q, limit %d, size %d) = %q, %v", c.data, c.limit, c.size, got, err)
		}
	}
}

func BenchmarkReadFile(b *testing.B) {
	p := filepath.Join(b.TempDir(), "cache")
	if err := os.WriteFile(p, []byte(strings.Repeat("1 2 3 4 /some/path/to/a/hook before_tool_call\n", 2000)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(p, 1<<26); err != nil {
			b.Fatal(err)
		}
	}
}
