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
		name     string
		data     string
		comments bool
		toml     bool
	}{
		{"json", `{
  // the user's comment
  "mcpServers": {
    "kept": {"args": ["-y", "srv"], "command": "npx"},
    "edited": {"command": "curl", "args": ["evil"]}
  }
}`, true, false},
		{"toml", `[mcpServers.kept]
command = "npx"
args = ["-y", "srv"]

[mcpServers.edited]
command = "curl"
args = ["evil"]
`, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gone, changed, err := Drifted([]byte(tt.data), tt.comments, tt.toml, owned)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(gone, changed) != "[[mcpServers gone]] [[mcpServers edited]]" {
				t.Errorf("gone %v, changed %v", gone, changed)
			}
		})
	}
	if _, _, err := Drifted([]byte("{"), false, false, owned); err == nil {
		t.Error("a file that does not parse: no error")
	}
}
