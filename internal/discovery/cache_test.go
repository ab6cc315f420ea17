package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// The cache file round-trips any path and value: bare fields where they
// are plain, quoted where they hold spaces, quotes or other bytes.
func TestFileCacheRoundTrip(t *testing.T) {
	s := plugins.Scope{Location: plugins.Global, Root: t.TempDir()}
	fi, err := os.Stat(s.Root)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]hookType{
		"/plain/path/hook":            {Declared: Declared{Event: format.TurnEnd}},
		"/with space/and \"quotes\"":  {Declared: Declared{Event: format.AgentStop}},
		`"/starts with a quote`:       {Declared: Declared{Event: format.BeforeToolCall}},
		"/ünïcode/hook":               {Declared: Declared{Event: format.AfterToolCall}},
		"/persistent/hook":            {Declared: Declared{Event: format.BeforeToolCall, Persistent: true}},
		"/tab\there/x":                {Error: "answered \"garbage\" to `hook`"},
		"/failing/hook with no event": {Error: "did not answer `hook` within 5s"},
	}
	fc := loadFileCache(s, typeCacheFile, hookTypeCodec)
	for p, v := range entries {
		fc.store(p, fi, v)
	}
	fc.save()
	back := loadFileCache(s, typeCacheFile, hookTypeCodec)
	if back.dirty || back.len() != len(entries) {
		t.Fatalf("reloaded %d entries (dirty %v), want %d", back.len(), back.dirty, len(entries))
	}
	for p, want := range entries {
		if got, ok := back.lookup(p, fi); !ok || got != want {
			t.Errorf("%q: got %+v %v, want %+v", p, got, ok, want)
		}
	}
	// A file from another format version or a torn line is ignored.
	for _, bad := range []string{"quiver-cache 1\n", cacheHeader + "\n12 34 420 /x\n", cacheHeader + "\n1 2 3 \"/unterminated before_tool_call\n"} {
		os.WriteFile(filepath.Join(s.CacheDir(), typeCacheFile), []byte(bad), 0o644)
		if c := loadFileCache(s, typeCacheFile, hookTypeCodec); c.len() != 0 || !c.dirty {
			t.Errorf("%q: loaded %d entries, dirty %v", bad, c.len(), c.dirty)
		}
	}
}

// A `hook` answer is an event and optional words: "persistent" is kept,
// unknown words are ignored, anything else is no declaration.
func TestParseDeclared(t *testing.T) {
	for answer, want := range map[string]Declared{
		"before_tool_call":                 {Event: format.BeforeToolCall},
		"before_tool_call persistent":      {Event: format.BeforeToolCall, Persistent: true},
		"  agent_stop  persistent  ":       {Event: format.AgentStop, Persistent: true},
		"turn_end someday-word persistent": {Event: format.TurnEnd, Persistent: true},
		"user_message_send someday-word":   {Event: format.UserMessageSend},
		"after_tool_call persistently":     {Event: format.AfterToolCall},
	} {
		if got, ok := parseDeclared(answer); !ok || got != want {
			t.Errorf("%q: got %+v %v, want %+v", answer, got, ok, want)
		}
	}
	for _, bad := range []string{"", "persistent", "persistent before_tool_call", "Before_tool_call"} {
		if got, ok := parseDeclared(bad); ok {
			t.Errorf("%q: got %+v, want no declaration", bad, got)
		}
	}
}

// TestFileCacheIndex: lines are found by path as a map of parsed entries
// found them (a path given twice: the last line; blank lines skipped),
// and a save keeps exactly the lines looked up plus what was stored.
func TestFileCacheIndex(t *testing.T) {
	s := plugins.Scope{Location: plugins.Global, Root: t.TempDir()}
	fi, err := os.Stat(s.Root)
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("%d %d %d %d ", fi.Size(), fi.ModTime().UnixNano(), changeTime(fi), uint32(fi.Mode()))
	file := cacheHeader + "\n" +
		key + "/a turn_end\n" +
		"\n" +
		key + "/b agent_stop\n" +
		key + "\"/with space\" before_tool_call\n" +
		key + "/a after_tool_call\n" +
		key + "/unlooked turn_end"
	if err := os.MkdirAll(s.CacheDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.CacheDir(), typeCacheFile), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	fc := loadFileCache(s, typeCacheFile, hookTypeCodec)
	if fc.dirty || fc.len() != 4 {
		t.Fatalf("loaded %d entries, dirty %v", fc.len(), fc.dirty)
	}
	for p, want := range map[string]string{"/a": format.AfterToolCall, "/b": format.AgentStop, "/with space": format.BeforeToolCall} {
		if got, ok := fc.lookup(p, fi); !ok || got.Event != want {
			t.Errorf("%s: %+v %v, want %s", p, got, ok, want)
		}
	}
	if _, ok := fc.lookup("/missing", fi); ok {
		t.Error("a path not in the file was found")
	}
	fc.store("/b", fi, hookType{Declared: Declared{Event: format.TurnEnd}})
	fc.store("/new", fi, hookType{Declared: Declared{Event: format.AgentStop}})
	fc.save()
	back := loadFileCache(s, typeCacheFile, hookTypeCodec)
	want := map[string]string{"/a": format.AfterToolCall, "/b": format.TurnEnd, "/with space": format.BeforeToolCall, "/new": format.AgentStop}
	if back.dirty || back.len() != len(want) {
		t.Fatalf("saved %d entries (dirty %v), want %d", back.len(), back.dirty, len(want))
	}
	for p, ev := range want {
		if got, ok := back.lookup(p, fi); !ok || got.Event != ev {
			t.Errorf("after save, %s: %+v %v, want %s", p, got, ok, ev)
		}
	}
	if _, ok := back.get("/unlooked"); ok {
		t.Error("a line never looked up was kept")
	}
}

// TestFileCacheBlankLinesReserveLittle: a file of blank lines holds no
// entry and must not reserve room for millions.
func TestFileCacheBlankLinesReserveLittle(t *testing.T) {
	s := plugins.Scope{Location: plugins.Global, Root: t.TempDir()}
	if err := os.MkdirAll(s.CacheDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	const size = 8 << 20
	if err := os.WriteFile(filepath.Join(s.CacheDir(), typeCacheFile), []byte(cacheHeader+"\n"+strings.Repeat("\n", size)), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fc := loadFileCache(s, typeCacheFile, hookTypeCodec)
	runtime.ReadMemStats(&after)
	if fc.len() != 0 {
		t.Errorf("%d entries", fc.len())
	}
	// The file's own buffer, and the index sized by what could fit.
	if got := after.TotalAlloc - before.TotalAlloc; got > 6*size {
		t.Errorf("loading %d blank lines allocated %d MB", size, got>>20)
	}
}
