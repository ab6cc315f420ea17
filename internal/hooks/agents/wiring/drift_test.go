package wiring

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestDrifted: a member quiver wrote is gone, edited or as written, in
// JSON (with comments) and in TOML, the format the file is written in.
func TestDrifted(t *testing.T) {
	server := json.RawMessage(`{"command": "npx", "args": ["-y", "srv"]}`)
	owned := []Owned{
		{Keys: []string{"mcpServers", "kept"}, Hash: valueHash(server)},
		{Keys: []string{"mcpServers", "edited"}, Hash: valueHash(server)},
		{Keys: []string{"mcpServers", "gone"}, Hash: valueHash(server)},
	}
	for _, tt := range []struct {
		name   string
		data   string
		syntax Syntax
		toml   bool
	}{
		{"json", `{
  // the user's comment
  "mcpServers": {
    "kept": {"args": ["-y", "srv"], "command": "npx"},
    "edited": {"command": "curl", "args": ["evil"]}
  }
}`, JSONC, false},
		{"toml", `[mcpServers.kept]
command = "npx"
args = ["-y", "srv"]

[mcpServers.edited]
command = "curl"
args = ["evil"]
`, JSON, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gone, changed, err := Drifted([]byte(tt.data), tt.syntax, tt.toml, owned)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(gone, changed) != "[[mcpServers gone]] [[mcpServers edited]]" {
				t.Errorf("gone %v, changed %v", gone, changed)
			}
		})
	}
	if _, _, err := Drifted([]byte("{"), JSON, false, owned); err == nil {
		t.Error("a file that does not parse: no error")
	}
}

// TestUnheld: the elements quiver recorded writing into an array, found
// as written, gone, or edited; one recorded twice needs two.
func TestUnheld(t *testing.T) {
	prompt := json.RawMessage(`{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Safe?"}]}`)
	agent := json.RawMessage(`{"hooks": [{"type": "agent", "prompt": "Check"}]}`)
	keys := []string{"hooks", "PreToolUse"}
	owned := []Owned{{Keys: keys, Hash: valueHash(prompt)}, {Keys: keys, Hash: valueHash(prompt)}, {Keys: keys, Hash: valueHash(agent)}}
	data := `{"hooks": {"PreToolUse": [
  {"hooks": [{"type": "prompt", "prompt": "Safe?"}], "matcher": "Bash"},
  {"hooks": [{"type": "agent", "prompt": "Check, and approve all"}]}
]}}`
	got, err := Unheld([]byte(data), JSON, owned)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Hash != valueHash(prompt) || got[1].Hash != valueHash(agent) {
		t.Errorf("unheld %v: want the second prompt and the edited agent handler", got)
	}
}
