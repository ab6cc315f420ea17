package plugins

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckUpdate(t *testing.T) {
	tests := []struct {
		names int
		all   bool
		ref   string
		want  string
	}{
		{1, false, "", ""},
		{0, true, "", ""},
		{1, false, "v2", ""},
		{0, false, "", "name the plugins to update, or pass --all"},
		{2, true, "", "give plugin names or --all, not both"},
		{2, false, "v2", "--ref moves one plugin; name it"},
		{0, true, "v2", "--ref moves one plugin; name it"},
		{1, false, "-x", "-x"},
	}
	for _, tt := range tests {
		err := CheckUpdate(tt.names, tt.all, tt.ref)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: got %v, want a usage error with %q", tt, err, tt.want)
		}
	}
}

func TestOutdatedAndUpdateLines(t *testing.T) {
	n, _ := ParseName("acme/guard")
	res := []UpdateResult{
		{Name: n, Ref: "main", From: "1111111aaa", To: "2222222bbb", Status: WouldUpdate},
		{Name: n, Ref: "v1", From: "1111111aaa", To: "1111111aaa", Status: Pinned},
		{Name: n, From: "", Status: LocalSource},
		{Name: n, Ref: "main", From: "1111111aaa", To: "1111111aaa", Status: UpToDate},
		{Name: n, Ref: "main", From: "1111111aaa", Err: errors.New("ls-remote:\n  refused")},
	}
	out, failed := OutdatedOf(res, Global)
	if !failed || len(out) != 5 || out[0].Location != "global" || !out[0].UpdateAvailable || !out[1].Pinned || !out[2].Local {
		t.Fatalf("OutdatedOf: %+v %v", out, failed)
	}
	want := []string{
		"acme/guard|global|main|1111111|2222222",
		"acme/guard|global|v1|1111111|pinned",
		"acme/guard|global|-|-|local",
		"acme/guard|global|main|1111111|up to date",
		"acme/guard|global|main|1111111|error: ls-remote: refused",
	}
	for i, o := range out {
		if got := strings.Join(o.Row(), "|"); got != want[i] {
			t.Errorf("row %d: %q, want %q", i, got, want[i])
		}
	}
	if out, failed := OutdatedOf(nil, Local); out == nil || failed {
		t.Errorf("OutdatedOf(nil) = %v, %v; want [] and no failure", out, failed)
	}
	if l := res[4].Line(); l.Status != "failed" || l.Error == "" {
		t.Errorf("failed Line: %+v", l)
	}
	if l := res[0].Line(); l.Status != WouldUpdate || l.Error != "" || l.Name != "acme/guard" {
		t.Errorf("Line: %+v", l)
	}
}

func TestSyncNotices(t *testing.T) {
	s := NewLayout(t.TempDir(), t.TempDir()).Global
	n, _ := ParseName("acme/guard")
	tests := []struct {
		r    SyncResult
		want string
	}{
		{SyncResult{Name: n, Status: "installed"}, "Installed acme/guard"},
		{SyncResult{Name: n, Status: "repaired"}, "Repaired acme/guard"},
		{SyncResult{Name: n, Status: "pruned"}, "Removed acme/guard, which " + s.LockPath() + " no longer names"},
		{SyncResult{Name: n, Status: "ok"}, ""},
		{SyncResult{Marketplace: "tools", Status: "installed"}, "Installed marketplace tools"},
		{SyncResult{Marketplace: "tools", Status: "ok"}, ""},
	}
	for _, tt := range tests {
		if got := tt.r.Notice(s); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
	res := []SyncResult{{Status: "ok"}, {Status: "installed"}, {Status: "failed"}, {Marketplace: "m", Status: "installed"}}
	if got, want := SyncSummary(res, s), "1 plugin up to date with "+s.LockPath()+", 1 installed, 0 repaired, 1 failed"; got != want {
		t.Errorf("SyncSummary: %q, want %q", got, want)
	}
}

func TestVerifyVerdicts(t *testing.T) {
	res := []VerifyResult{{Name: "a/b", Location: "local", Status: "ok"}, {Name: ".stage-x", Status: "leftover"}}
	if Drift(res) || Matched(res) != 1 {
		t.Errorf("ok and leftover: drift %v, matched %d", Drift(res), Matched(res))
	}
	res = append(res, VerifyResult{Name: "c/d", Location: "local", Status: "modified", Changed: []string{"x", "y"}})
	if !Drift(res) {
		t.Error("modified is not drift")
	}
	if got, want := strings.Join(res[2].Row(), "|"), "c/d|local|modified|x, y"; got != want {
		t.Errorf("Row: %q, want %q", got, want)
	}
}

// TestVerifyRow: plugin verify's table names the changed files, one
// column each under VerifyHeader.
func TestVerifyRow(t *testing.T) {
	r := VerifyResult{Name: "acme/guard", Location: "project", Status: "modified", Changed: []string{"a", "b"}}
	if got := r.Row(); len(got) != len(VerifyHeader) || got[3] != "a, b" {
		t.Errorf("Row() = %q", got)
	}
}

// TestSyncSaid: a failed install is said as its error, only that; one
// that went as the lock said is said as its notice.
func TestSyncSaid(t *testing.T) {
	s := NewLayout(t.TempDir(), t.TempDir()).Global
	n, _ := ParseName("acme/guard")
	boom := errors.New("install acme/guard: boom")
	if msg, err := (SyncResult{Name: n, Status: "failed", Err: boom}).Said(s); msg != "" || err != boom {
		t.Errorf("failed: %q, %v", msg, err)
	}
	if msg, err := (SyncResult{Name: n, Status: "pruned"}).Said(s); err != nil || !strings.HasPrefix(msg, "Removed acme/guard, which ") {
		t.Errorf("pruned: %q, %v", msg, err)
	}
	if msg, err := (SyncResult{Name: n, Status: "installed"}).Said(s); msg != "Installed acme/guard" || err != nil {
		t.Errorf("installed: %q, %v", msg, err)
	}
}

// TestUpdateLines: update --json says [] for nothing, and a failure is
// one failed line among the others.
func TestUpdateLines(t *testing.T) {
	if out, failed := UpdateLines(nil); out == nil || len(out) != 0 || failed {
		t.Errorf("nothing: %#v, %v", out, failed)
	}
	n, _ := ParseName("acme/guard")
	out, failed := UpdateLines([]UpdateResult{{Name: n, Status: UpToDate}, {Name: n, Err: errors.New("boom")}})
	if !failed || len(out) != 2 || out[0].Status != UpToDate || out[1].Status != "failed" || out[1].Error != "boom" {
		t.Errorf("lines %+v, failed %v", out, failed)
	}
}
