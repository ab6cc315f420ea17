package wiring

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func claudeLike() Config {
	entry := func(ev, cmd string) Entry {
		return Entry{Keys: []string{"hooks", ev}, Value: json.RawMessage(fmt.Sprintf(`{"matcher":"*","hooks":[{"type":"command","command":%q,"timeout":600}]}`, cmd))}
	}
	return Config{
		Entries: []Entry{entry("PreToolUse", "quiver hook run --format claude before_tool_call"), entry("Stop", "quiver hook run --format claude agent_stop")},
		Ours: func(e json.RawMessage) bool {
			return CommandsRun(e, func(c string) bool { return strings.Contains(c, "hook run --format claude") })
		},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, orig := range []string{
		"",
		"{}",
		"{}\n",
		"{\n  \"model\": \"opus\"\n}\n",
		"{\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"}]\n            }\n        ]\n    },\n    \"x\": [1, 2]\n}\n",
		`{"env":{"A":"b"},"hooks":{}}`,
		"{\n\t\"hooks\": {\n\t\t\"Stop\": []\n\t}\n}\n",
		// A one-line array in a multi-line file, a blank inside an
		// empty composite: given back byte for byte.
		"{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}]\n  }\n}\n",
		"{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": []},{\"hooks\": []}]\n  }\n}\n",
		"{\n\t\"hooks\": {\n\t\t\"Stop\": [ ]\n\t}\n}",
		"{ }\n",
		"{\n  \"hooks\": { }\n}\n",
	} {
		c := claudeLike()
		in, err := Install(c, []byte(orig), nil)
		if err != nil {
			t.Fatalf("%q: %v", orig, err)
		}
		t.Logf("after install:\n%s\ncreated %v", in.Data, in.Created)
		var v any
		if err := json.Unmarshal(in.Data, &v); err != nil {
			t.Fatalf("install wrote invalid JSON: %v\n%s", err, in.Data)
		}
		again, err := Install(c, in.Data, in.Created)
		if err != nil || again.Changed {
			t.Fatalf("reinstall changed:\n%s", again.Data)
		}
		out, err := Uninstall(c, in.Data, in.Created, orig == "")
		if err != nil {
			t.Fatal(err)
		}
		if orig == "" {
			if !out.Delete {
				t.Fatalf("file not deleted: %s", out.Data)
			}
			continue
		}
		if string(out.Data) != orig {
			t.Errorf("remove did not restore:\n%q\nwant\n%q", out.Data, orig)
		}
	}
}
