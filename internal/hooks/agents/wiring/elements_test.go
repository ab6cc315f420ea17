package wiring

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestSyncElements: quiver's elements are known only by the record's
// hashes. Two equal wanted elements are two; a person's equal element
// earlier in the array is never the one removed; one of quiver's that
// the person edited is theirs and stays; an array quiver made goes once
// empty; the original bytes come back.
func TestSyncElements(t *testing.T) {
	keys := []string{"hooks", "PreToolUse"}
	mine := `{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"safe?"}]}`
	other := `{"hooks":[{"type":"prompt","prompt":"mine only"}]}`
	before := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      " + mine + ",\n      " + other + "\n    ]\n  }\n}\n"
	prompt := Element{Keys: keys, Value: json.RawMessage(mine)}
	stop := Element{Keys: []string{"hooks", "Stop"}, Value: json.RawMessage(`{"hooks":[{"type":"agent","prompt":"tests pass?"}]}`)}
	arrays := func(data []byte) map[string][]string {
		var doc struct {
			Hooks map[string][]json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%v:\n%s", err, data)
		}
		out := map[string][]string{}
		for k, els := range doc.Hooks {
			for _, el := range els {
				out[k] = append(out[k], valueHash(el)[:15])
			}
		}
		return out
	}
	h := func(s string) string { return valueHash(json.RawMessage(s))[:15] }

	// Two plugins' equal handlers: two elements beside the person's equal
	// one, and a Stop array quiver makes.
	ch, err := SyncElements([]byte(before), JSON, []Element{prompt, prompt, stop}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := arrays(ch.Data)
	if want := []string{h(mine), h(other), h(mine), h(mine)}; !slices.Equal(got["PreToolUse"], want) {
		t.Errorf("PreToolUse %v, want %v", got["PreToolUse"], want)
	}
	if len(ch.Owned) != 3 || !slices.Equal(ch.Created, []string{"hooks.Stop"}) {
		t.Errorf("owned %v, created %v", ch.Owned, ch.Created)
	}
	again, err := SyncElements(ch.Data, JSON, []Element{prompt, prompt, stop}, ch.Owned, ch.Created)
	if err != nil || again.Changed || len(again.Owned) != len(ch.Owned) {
		t.Errorf("syncing the same again changed the file (%v)", err)
	}

	// One plugin goes: one of quiver's two goes, from the end.
	one, err := SyncElements(ch.Data, JSON, []Element{prompt, stop}, ch.Owned, ch.Created)
	if err != nil {
		t.Fatal(err)
	}
	if got := arrays(one.Data)["PreToolUse"]; !slices.Equal(got, []string{h(mine), h(other), h(mine)}) {
		t.Errorf("after one went: %v", got)
	}

	// The person edits quiver's Stop handler: it is theirs; quiver,
	// still wanting its own, writes it again, and warns once.
	edited := strings.Replace(string(one.Data), "tests pass?", "tests and lint pass?", 1)
	ed, err := SyncElements([]byte(edited), JSON, []Element{prompt, stop}, one.Owned, one.Created)
	if err != nil {
		t.Fatal(err)
	}
	if len(ed.Warnings) != 1 || !strings.Contains(ed.Warnings[0], "hooks.Stop was changed or removed since") {
		t.Errorf("warnings %q", ed.Warnings)
	}
	if got := arrays(ed.Data)["Stop"]; len(got) != 2 || got[1] != h(string(stop.Value)) {
		t.Errorf("Stop after the edit: %v", got)
	}

	// Nothing wanted: quiver's go, the edited one and the person's stay.
	none, err := SyncElements(ed.Data, JSON, nil, ed.Owned, ed.Created)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(none.Data), "tests and lint pass?") || strings.Contains(string(none.Data), `"tests pass?"`) {
		t.Errorf("after removing:\n%s", none.Data)
	}

	// From the first install, removed: the original bytes, the Stop
	// array quiver made gone with it.
	back, err := SyncElements(ch.Data, JSON, nil, ch.Owned, ch.Created)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Data) != before || len(back.Created) != 0 || len(back.Owned) != 0 {
		t.Errorf("after removing all:\n%s\nwant:\n%s (created %v)", back.Data, before, back.Created)
	}

	// A record naming what is not there, or hashes nothing has: nothing
	// changes.
	stray := []Owned{{Keys: keys, Hash: "sha256:00"}, {Keys: []string{"permissions", "allow"}, Hash: h(mine)}}
	if res, err := SyncElements([]byte(before), JSON, nil, stray, nil); err != nil || res.Changed {
		t.Errorf("a stray record changed the file (%v):\n%s", err, res.Data)
	}
}
