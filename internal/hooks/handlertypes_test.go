package hooks

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// TestCommandHandlerForms: an exec-form handler gets its arguments with
// the plugin's folders and options expanded in place (a folder with a
// space stays one argument), the options as CLAUDE_PLUGIN_OPTION_<KEY>,
// secrets too, and CLAUDE_ENV_FILE only on the events Claude gives it on;
// an option that is not set fails the handler without running it.
func TestCommandHandlerForms(t *testing.T) {
	base := t.TempDir()
	layout := plugins.NewLayout(filepath.Join(base, "project"), filepath.Join(base, "home", ".quiver"))
	os.MkdirAll(layout.ProjectDir, 0o755)
	dir := filepath.Join(layout.Global.Root, "plugins", "org@p")
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude-plugin/plugin.json", `{"name":"p","userConfig":{
		"level":{"type":"string","title":"Level"},
		"api-key":{"type":"string","sensitive":true},
		"unset":{"type":"string"}}}`)
	show := `printf '%s|' "$@" "$CLAUDE_PLUGIN_OPTION_LEVEL" "$CLAUDE_PLUGIN_OPTION_API_KEY" "${CLAUDE_ENV_FILE-none}"`
	write("hooks/hooks.json", fmt.Sprintf(`{"hooks":{
		"SessionStart":[{"hooks":[{"type":"command","command":"/bin/sh","args":["-c",%[1]q,"sh","${CLAUDE_PLUGIN_ROOT}/a b","${user_config.level}"]}]}],
		"PreToolUse":[{"hooks":[
			{"type":"command","command":"/bin/sh","args":["-c",%[2]q,"sh","${CLAUDE_PROJECT_DIR}"]},
			{"type":"command","command":"/bin/sh","args":["-c","echo ran >&2","${user_config.unset}"]}]}]}}`, show, show+` >&2; exit 2`))
	p, err := plugins.ReadPlugin(layout.Global, mustName(t, "org/p"))
	if err != nil {
		t.Fatal(err)
	}
	if err := plugins.SetUserConfig(p, map[string]string{"level": "high; rm -rf ~", "api-key": "s3cret"}); err != nil {
		t.Fatal(err)
	}
	hs, err := discovery.Hooks(t.Context(), discovery.Options{Layout: layout})
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string) discovery.Hook {
		for _, h := range hs.Hooks {
			if h.Name == "org/p/hooks.json/"+name {
				if h.Status != discovery.Active {
					t.Fatalf("%s is %s: %s", name, h.Status, h.Reason)
				}
				return h
			}
		}
		t.Fatalf("no %s", name)
		return discovery.Hook{}
	}
	t.Setenv("CLAUDE_ENV_FILE", filepath.Join(base, "env.sh"))
	ex := &Executor{ProjectDir: layout.ProjectDir, Timeout: 10 * time.Second}

	o := ex.Run(t.Context(), find("SessionStart.1"), format.SessionStart, []byte(`{}`), layout.ProjectDir)
	want := dir + "/a b|high; rm -rf ~|high; rm -rf ~|s3cret|" + filepath.Join(base, "env.sh") + "|"
	if o.Status != OK || o.Response == nil || o.Response.Context != want {
		t.Errorf("session_start: %s %q %q; want context %q", o.Status, o.Error, o.Stdout, want)
	}
	o = ex.Run(t.Context(), find("PreToolUse.1"), format.BeforeToolCall, []byte(`{"tool_name":"Bash"}`), layout.ProjectDir)
	want = layout.ProjectDir + "|high; rm -rf ~|s3cret|none|"
	if o.Status != Blocked || o.Reason != want {
		t.Errorf("before_tool_call: %s %q; want blocked with %q (no CLAUDE_ENV_FILE)", o.Status, o.Reason, want)
	}
	o = ex.Run(t.Context(), find("PreToolUse.2"), format.BeforeToolCall, []byte(`{"tool_name":"Bash"}`), layout.ProjectDir)
	if o.Status != Failed || !strings.Contains(o.Error, `plugin option "unset" is not set (set it with quiver plugin config org/p KEY=VALUE)`) || len(o.Stderr) != 0 {
		t.Errorf("unset option: %s %q %q", o.Status, o.Error, o.Stderr)
	}
}

// TestHTTPHandler posts to a real server on 127.0.0.1: Claude's input as
// JSON, headers filled only from allowed, non-credential variables, no
// redirect followed, the answer read as a command's stdout; and no
// secret in any error.
func TestHTTPHandler(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, string(b))
		mu.Unlock()
		switch r.URL.Path {
		case "/deny":
			io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no pushing"}}`)
		case "/empty":
		case "/text":
			io.WriteString(w, "hello")
		case "/500":
			w.WriteHeader(500)
			io.WriteString(w, "Bearer s3cret") // a server echoing the header
		case "/redirect":
			http.Redirect(w, r, "/deny", http.StatusFound)
		case "/big":
			io.WriteString(w, `{"x":"`+strings.Repeat("a", MaxStdout)+`"}`)
		case "/slow":
			<-r.Context().Done() // answers when the client gives up
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	t.Setenv("MY_TOKEN", "s3cret")
	t.Setenv("GITHUB_TOKEN", "ghp_s3cret")
	t.Setenv("OTHER", "other")
	handler := func(event, url string) discovery.Hook {
		return discovery.Hook{Name: "h", Status: discovery.Active, Format: discovery.FormatClaude, Handler: &format.Handler{
			Event: event, N: 1, Type: "http", URL: url, Timeout: 500 * time.Millisecond,
			Headers:        map[string]string{"Authorization": "Bearer $MY_TOKEN", "X-Leak": "${GITHUB_TOKEN}", "X-Unlisted": "[$OTHER]", "Content-Length": "1"},
			AllowedEnvVars: []string{"MY_TOKEN", "GITHUB_TOKEN"},
		}}
	}
	ex := &Executor{ProjectDir: t.TempDir(), Timeout: 10 * time.Second}
	payload := []byte(`{"conv_id":"c1","tool_name":"Bash","tool_input":{"command":"git push"}}`)
	for _, tc := range []struct {
		path   string
		event  string
		status Status
		says   string // in the reason or error
		hits   int
	}{
		{"/deny", "PreToolUse", Blocked, "no pushing", 1},
		{"/empty", "PreToolUse", NoAction, "", 1},
		{"/text", "PreToolUse", Failed, "its answer is not a JSON object", 1},
		{"/500", "PreToolUse", Failed, "answered HTTP 500 Internal Server Error", 1},
		{"/redirect", "PreToolUse", Failed, "answered HTTP 302 Found", 1},
		{"/big", "PreToolUse", Failed, "its answer exceeded 1048576 bytes", 1},
		{"/slow", "PreToolUse", TimedOut, "timed out after 500ms", 1},
		{"/deny", "SessionStart", Skipped, "not sent on SessionStart", 0},
		{"closed", "PreToolUse", Failed, "cannot reach " + closed.URL + "/x: dial tcp", 0},
	} {
		t.Run(tc.path+" "+tc.event, func(t *testing.T) {
			mu.Lock()
			got, bodies = nil, nil
			mu.Unlock()
			url := srv.URL + tc.path
			if tc.path == "closed" {
				url = closed.URL + "/x"
			}
			o := ex.Run(t.Context(), handler(tc.event, url), format.BeforeToolCall, payload, ex.ProjectDir)
			if o.Status != tc.status || !strings.Contains(o.Reason+o.Error, tc.says) {
				t.Errorf("%s %q %q; want %s saying %q", o.Status, o.Reason, o.Error, tc.status, tc.says)
			}
			if strings.Contains(fmt.Sprint(o.Reason, o.Error, o.Response), "s3cret") {
				t.Errorf("a secret in the outcome: %q %q", o.Reason, o.Error)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != tc.hits {
				t.Fatalf("%d requests; want %d", len(got), tc.hits)
			}
			if tc.hits == 0 {
				return
			}
			r := got[0]
			if r.Method != "POST" || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Authorization") != "Bearer s3cret" ||
				r.Header.Get("X-Leak") != "" || r.Header.Get("X-Unlisted") != "[]" {
				t.Errorf("request %s %v", r.Method, r.Header)
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(bodies[0]), &in); err != nil || in["session_id"] != "c1" || in["hook_event_name"] != tc.event {
				t.Errorf("body %s (%v)", bodies[0], err)
			}
		})
	}
}

// TestHandlerFailures: onFailure: block makes a failure block a blocking
// event without --fail-closed; a handler only Claude can run is listed
// invalid and blocks nothing, even fail-closed; a plugin's duplicate
// handler is reported skipped, naming the one that ran.
func TestHandlerFailures(t *testing.T) {
	claudeHook := func(name string, hd format.Handler, status discovery.Status) discovery.Hook {
		return discovery.Hook{Name: name, Status: status, Reason: hd.Problem, Handler: &hd}
	}
	set := []discovery.Hook{
		claudeHook("prompt", format.Handler{Type: "prompt", Problem: "needs Claude Code's model", Native: json.RawMessage(`{}`)}, discovery.Invalid),
		claudeHook("soft", format.Handler{Type: "command"}, discovery.Active),
		claudeHook("hard", format.Handler{Type: "command", OnFailure: "block"}, discovery.Active),
		{Name: "after", Status: discovery.Active},
	}
	s := &scripted{answers: map[string]Outcome{"soft": failed("exit status 1"), "hard": failed("exit status 1")}, seen: map[string]map[string]json.RawMessage{}}
	for _, failClosed := range []bool{false, true} {
		s.order = nil
		tr := &Trigger{Run: s.run, FailClosed: failClosed}
		res := tr.Fire(t.Context(), format.BeforeToolCall, Payload{}, set)
		want := "hard"
		if failClosed {
			want = "soft"
		}
		if !res.Blocked || res.BlockedBy != want || !strings.Contains(res.Reason, "failed: exit status 1") {
			t.Errorf("fail-closed %v: blocked %v by %q (%s); want by %s", failClosed, res.Blocked, res.BlockedBy, res.Reason, want)
		}
		if r := res.Hooks[0]; r.Name != "prompt" || r.Status != Invalid || r.Note != "run by Claude Code only: blocks nothing" {
			t.Errorf("prompt handler: %+v", r)
		}
	}
	// After a non-blocking event, onFailure changes nothing.
	res := (&Trigger{Run: s.run}).Fire(t.Context(), format.AfterToolCall, Payload{}, set)
	if res.Blocked || len(res.Hooks) != 4 {
		t.Errorf("after_tool_call: %+v", res)
	}
}

func mustName(t *testing.T, s string) plugins.Name {
	n, err := plugins.ParseName(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
