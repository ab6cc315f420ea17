package claude

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files' want sections")

// TestGolden runs every testdata/*.txtar case. An input case holds
// payload.json (quiver's payload) and input.json (what the handler reads,
// the golden part); an output case holds stdout and stderr of a handler,
// taken from Claude Code's published hook examples, and result.json (the
// golden quiver result). The archive's comment says "input EVENT
// CLAUDE_EVENT" or "output EVENT CLAUDE_EVENT EXIT".
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden cases")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fields := strings.Fields(string(ar.Comment))
			get := func(name string) []byte {
				for _, f := range ar.Files {
					if f.Name == name {
						return f.Data
					}
				}
				return nil
			}
			var got []byte
			var want string
			switch {
			case len(fields) == 3 && fields[0] == "input":
				var p map[string]json.RawMessage
				if err := json.Unmarshal(get("payload.json"), &p); err != nil {
					t.Fatal(err)
				}
				got, want = indent(t, Input(fields[2], p)), "input.json"
			case len(fields) == 4 && fields[0] == "output":
				code, _ := strconv.Atoi(fields[3])
				r := Output(fields[1], fields[2], code, get("stdout"), get("stderr"))
				data, _ := json.Marshal(resultJSON(r))
				got, want = indent(t, data), "result.json"
			default:
				t.Fatalf("comment %q: want \"input EVENT CLAUDE_EVENT\" or \"output EVENT CLAUDE_EVENT EXIT\"", ar.Comment)
			}
			if *update {
				setFile(ar, want, got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(get(want), got) {
				t.Errorf("%s:\n got %s\nwant %s", want, got, get(want))
			}
		})
	}
}

// resultJSON shows a Result with readable action names.
func resultJSON(r Result) map[string]any {
	m := map[string]any{"action": [...]string{"none", "block", "ask", "defer", "fail"}[r.Action]}
	add := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	add("reason", r.Reason)
	add("error", r.Error)
	add("context", r.Context)
	add("notice", r.Notice)
	add("follow_up", r.FollowUp)
	if r.Input != nil {
		m["input"] = r.Input
	}
	if r.Output != nil {
		m["output"] = r.Output
	}
	if len(r.AgentOutput) > 0 {
		m["agent_output"] = r.AgentOutput
	}
	if len(r.Ignored) > 0 {
		m["ignored"] = r.Ignored
	}
	return m
}

func indent(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func setFile(ar *txtar.Archive, name string, data []byte) {
	for i, f := range ar.Files {
		if f.Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}
