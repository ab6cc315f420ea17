package wiring

import (
	"encoding/json"
	"strings"
	"testing"
)

// The user's own members and comments survive every step; quiver's
// members come and go; the file returns byte for byte.
func TestSyncMembersRoundTrip(t *testing.T) {
	orig := []byte(`{
  // the user's own
  "theme": "dark",
  "mcpServers": {
    "mine": {"command": "mine"}
  }
}
`)
	want := []Member{
		{Keys: []string{"mcpServers", "acme-guard-files"}, Value: json.RawMessage(`{"command":"files","args":["a.b"]}`)},
		{Keys: []string{"enabledPlugins", "guard@quiver"}, Value: json.RawMessage(`true`)},
	}
	s, err := SyncMembers(orig, JSONC, want, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got := string(s.Data)
	for _, w := range []string{`"mine": {"command": "mine"}`, `// the user's own`, "\"acme-guard-files\": {\n      \"command\": \"files\",", `"enabledPlugins": {`} {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %q:\n%s", w, got)
		}
	}
	if len(s.Owned) != 2 || len(s.Warnings) != 0 {
		t.Fatalf("owned %v warnings %v", s.Owned, s.Warnings)
	}
	// Again: nothing changes.
	again, err := SyncMembers(s.Data, JSONC, want, s.Owned, s.Created, false)
	if err != nil || again.Changed {
		t.Fatalf("second sync changed it (%v):\n%s", err, again.Data)
	}
	// A changed value of quiver's is updated in place.
	want[0].Value = json.RawMessage(`{"command":"files2"}`)
	upd, err := SyncMembers(s.Data, JSONC, want, s.Owned, s.Created, false)
	if err != nil || !strings.Contains(string(upd.Data), `"files2"`) || strings.Contains(string(upd.Data), `"a.b"`) {
		t.Fatalf("update (%v):\n%s", err, upd.Data)
	}
	// Nothing wanted: the file is as it was.
	back, err := SyncMembers(upd.Data, JSONC, nil, upd.Owned, upd.Created, false)
	if err != nil || string(back.Data) != string(orig) {
		t.Fatalf("undo (%v):\n%s\nwant\n%s", err, back.Data, orig)
	}
}

// quiver never takes over or removes what is not its own.
func TestSyncMembersLeavesTheUsers(t *testing.T) {
	orig := []byte(`{"mcpServers": {"x": {"command": "users"}}}`)
	want := []Member{{Keys: []string{"mcpServers", "x"}, Value: json.RawMessage(`{"command":"quivers"}`)}}
	s, err := SyncMembers(orig, JSON, want, nil, nil, false)
	if err != nil || s.Changed || len(s.Owned) != 0 || len(s.Warnings) != 1 {
		t.Fatalf("took over the user's member (%v): %s %v %v", err, s.Data, s.Owned, s.Warnings)
	}
	// The user edited quiver's member: it is theirs now.
	prev := []Owned{{Keys: []string{"mcpServers", "x"}, Hash: valueHash(json.RawMessage(`{"command":"quivers"}`))}}
	r, err := SyncMembers(orig, JSON, nil, prev, nil, false)
	if err != nil || r.Changed || len(r.Warnings) != 1 {
		t.Fatalf("removed an edited member (%v): %s %v", err, r.Data, r.Warnings)
	}
}

// A file quiver created goes when quiver's members do.
func TestSyncMembersCreatedFile(t *testing.T) {
	want := []Member{{Keys: []string{"mcp", "a"}, Value: json.RawMessage(`{"type":"local"}`)}}
	s, err := SyncMembers(nil, JSON, want, nil, nil, true)
	if err != nil || s.Delete {
		t.Fatal(err, s.Delete)
	}
	r, err := SyncMembers(s.Data, JSON, nil, s.Owned, s.Created, true)
	if err != nil || !r.Delete {
		t.Fatalf("not deleted (%v): %s", err, r.Data)
	}
	if _, err := SyncMembers([]byte(`[1]`), JSON, want, nil, nil, false); err == nil {
		t.Error("a file that is not an object was changed")
	}
}

// TestSyncMembersRestoresBytes: a member quiver adds and takes away again
// leaves the file's bytes as they were, whatever its style (comments, a
// trailing comma, a one-line object, a one-line file).
func TestSyncMembersRestoresBytes(t *testing.T) {
	for _, orig := range []string{
		"{\n  // mine\n  \"theme\": \"dark\",\n  \"mcpServers\": {\"own\": {\"command\": \"own\"}},\n}\n",
		"{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"own\": {\"command\": \"own\"}\n  }\n}\n",
		"{\"mcpServers\": {\"own\": {}}}",
		"{\n  \"theme\": \"dark\",\n}\n",
	} {
		m := []Member{{Keys: []string{"mcpServers", "x"}, Value: json.RawMessage(`{"command":"q","args":["a"]}`)}}
		s, err := SyncMembers([]byte(orig), JSONC, m, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		r, err := SyncMembers(s.Data, JSONC, nil, s.Owned, s.Created, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Data) != orig {
			t.Errorf("restore:\n%q\nwant\n%q", r.Data, orig)
		}
	}
}
