package wiring

import (
	"encoding/json"
	"strings"
	"testing"
)

// A user's Codex config.toml: comments, a top-level key, a trusted
// project, their own server with a sub-table, and a multi-line string
// and array whose lines look like table headers.
const userCodexConfig = `# my codex settings
model = "o4-mini" # the fast one

[projects."/x"]
trust_level = "trusted"

# my own server
[mcp_servers.mine]
command = "mine"
args = [
  "--flag",
  ["nested"],
]

[mcp_servers.mine.env]
FOO = "bar"

[notes]
text = """
[mcp_servers.acme-guard-files]
command = "not a table"
"""
`

func servers(entries ...string) []Member {
	var out []Member
	for i := 0; i+1 < len(entries); i += 2 {
		out = append(out, Member{Keys: []string{"mcp_servers", entries[i]}, Value: json.RawMessage(entries[i+1])})
	}
	return out
}

func TestSyncTOMLMembersRoundTrip(t *testing.T) {
	orig := []byte(userCodexConfig)
	want := servers(
		"acme-guard-files", `{"command":"quiver","args":["mcp","exec","-g","acme/guard","files"],"env_vars":["QUIVER_HOME"]}`,
		"acme-guard.js-web", `{"url":"https://example.com/mcp","bearer_token_env_var":"TOKEN","http_headers":{"X-Region":"eu"}}`,
	)
	s, err := SyncTOMLMembers(orig, want, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got := string(s.Data)
	if !strings.HasPrefix(got, userCodexConfig) {
		t.Fatalf("the user's part changed:\n%s", got)
	}
	added := strings.TrimPrefix(got, userCodexConfig)
	wantAdded := `
[mcp_servers.acme-guard-files]
command = 'quiver'
args = ['mcp', 'exec', '-g', 'acme/guard', 'files']
env_vars = ['QUIVER_HOME']

[mcp_servers.'acme-guard.js-web']
url = 'https://example.com/mcp'
bearer_token_env_var = 'TOKEN'

[mcp_servers.'acme-guard.js-web'.http_headers]
X-Region = 'eu'
`
	if added != wantAdded {
		t.Errorf("added:\n%s\nwant:\n%s", added, wantAdded)
	}
	if len(s.Owned) != 2 || len(s.Warnings) != 0 || s.Delete {
		t.Fatalf("owned %v warnings %v delete %v", s.Owned, s.Warnings, s.Delete)
	}

	again, err := SyncTOMLMembers(s.Data, want, s.Owned, false)
	if err != nil || again.Changed {
		t.Fatalf("a second sync changed it (%v):\n%s", err, again.Data)
	}

	// A changed value of quiver's is rewritten where it is.
	want[0].Value = json.RawMessage(`{"command":"quiver2"}`)
	upd, err := SyncTOMLMembers(s.Data, want, s.Owned, false)
	if err != nil {
		t.Fatal(err)
	}
	if u := string(upd.Data); !strings.Contains(u, "[mcp_servers.acme-guard-files]\ncommand = 'quiver2'\n\n[mcp_servers.'acme-guard.js-web']") || strings.Contains(u, "env_vars") {
		t.Fatalf("update:\n%s", u)
	}

	// Nothing wanted: the file is as it was, byte for byte.
	back, err := SyncTOMLMembers(upd.Data, nil, upd.Owned, false)
	if err != nil || string(back.Data) != userCodexConfig {
		t.Fatalf("undo (%v):\n%s\nwant\n%s", err, back.Data, userCodexConfig)
	}
}

// quiver never takes over or removes what is not its own, in whatever
// form the user wrote it.
func TestSyncTOMLMembersLeavesTheUsers(t *testing.T) {
	quivers := `{"command":"quivers"}`
	for name, file := range map[string]string{
		"table":         "[mcp_servers.x]\ncommand = \"users\"\n",
		"inline":        "mcp_servers.x = { command = \"users\" }\n",
		"under parent":  "[mcp_servers]\nx = { command = \"users\" }\n",
		"dotted":        "[mcp_servers]\nx.command = \"users\"\n",
		"whole inline":  "mcp_servers = { x = { command = \"users\" } }\n",
		"dotted at top": "mcp_servers.x.command = \"users\"\n",
	} {
		s, err := SyncTOMLMembers([]byte(file), servers("x", quivers), nil, false)
		if err != nil || s.Changed || len(s.Owned) != 0 || len(s.Warnings) != 1 {
			t.Errorf("%s: took over the user's table (%v): %s %v %v", name, err, s.Data, s.Owned, s.Warnings)
		}
	}
	// A table that holds exactly what quiver would write is quiver's, with
	// no record of this machine's: a teammate's clone of the file quiver
	// wrote (issue 43).
	same := "[mcp_servers.x]\ncommand = \"quivers\"\n"
	if s, err := SyncTOMLMembers([]byte(same), servers("x", quivers), nil, false); err != nil || s.Changed || len(s.Owned) != 1 || len(s.Warnings) != 0 {
		t.Errorf("same value: %v %s %v %v", err, s.Data, s.Owned, s.Warnings)
	}
	prev := []Owned{{Keys: []string{"mcp_servers", "x"}, Hash: valueHash(json.RawMessage(quivers))}}
	// The user edited quiver's table: it is theirs now.
	edited := []byte("[mcp_servers.x]\ncommand = \"users\"\n")
	r, err := SyncTOMLMembers(edited, nil, prev, false)
	if err != nil || r.Changed || len(r.Warnings) != 1 {
		t.Fatalf("removed an edited table (%v): %s %v", err, r.Data, r.Warnings)
	}
	// Same value, rewritten inline: quiver cannot lift it out whole.
	inline := []byte("mcp_servers.x = { command = \"quivers\" }\n")
	r, err = SyncTOMLMembers(inline, nil, prev, false)
	if err != nil || r.Changed || len(r.Warnings) != 1 {
		t.Fatalf("removed a rewritten table (%v): %s %v", err, r.Data, r.Warnings)
	}
	// Quiver's own table with its header respelled is still found.
	respelled := []byte("model = \"m\"\n\n[ mcp_servers . \"x\" ]\ncommand = 'quivers'\n")
	r, err = SyncTOMLMembers(respelled, nil, prev, false)
	if err != nil || string(r.Data) != "model = \"m\"\n" {
		t.Fatalf("respelled header (%v): %q", err, r.Data)
	}
}

// A file quiver created goes when quiver's tables do; line endings and a
// last line without a newline are kept.
func TestSyncTOMLMembersFiles(t *testing.T) {
	want := servers("a", `{"command":"a","env":{"K":"v"}}`)
	s, err := SyncTOMLMembers(nil, want, nil, true)
	if err != nil || s.Delete || string(s.Data) != "[mcp_servers.a]\ncommand = 'a'\n\n[mcp_servers.a.env]\nK = 'v'\n" {
		t.Fatalf("created (%v): %q", err, s.Data)
	}
	r, err := SyncTOMLMembers(s.Data, nil, s.Owned, true)
	if err != nil || !r.Delete {
		t.Fatalf("not deleted (%v): %s", err, r.Data)
	}

	crlf := []byte("# mine\r\nmodel = \"m\"\r\n")
	s, err = SyncTOMLMembers(crlf, want, nil, false)
	if err != nil || !strings.Contains(string(s.Data), "\r\n\r\n[mcp_servers.a]\r\ncommand = 'a'\r\n") {
		t.Fatalf("CRLF (%v): %q", err, s.Data)
	}
	r, err = SyncTOMLMembers(s.Data, nil, s.Owned, false)
	if err != nil || string(r.Data) != string(crlf) {
		t.Fatalf("CRLF undo (%v): %q", err, r.Data)
	}

	// A quiver table first in the file leaves with the blank line after it.
	first := []byte("[mcp_servers.a]\ncommand = 'a'\n\n[mcp_servers.a.env]\nK = 'v'\n\n[mine]\nx = 1\n")
	r, err = SyncTOMLMembers(first, nil, s.Owned, false)
	if err != nil || string(r.Data) != "[mine]\nx = 1\n" {
		t.Fatalf("first in file (%v): %q", err, r.Data)
	}
}

// What does not parse, or would not after the edit, is an error and
// changes nothing.
func TestSyncTOMLMembersRefuses(t *testing.T) {
	want := servers("a", `{"command":"a"}`)
	for name, file := range map[string]string{
		"broken":        "model = \n",
		"duplicate":     "a = 1\na = 2\n",
		"closed inline": "mcp_servers = {}\n",
		"not a table":   "mcp_servers = 5\n",
	} {
		if s, err := SyncTOMLMembers([]byte(file), want, nil, false); err == nil {
			t.Errorf("%s: no error:\n%s", name, s.Data)
		}
	}
	for _, bad := range []string{`"a string"`, `{"command":null}`} {
		if _, err := SyncTOMLMembers(nil, servers("a", bad), nil, false); err == nil {
			t.Errorf("%s: written", bad)
		}
	}
}
