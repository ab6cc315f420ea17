package hooks

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/async"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/testkit"
)

// asOwner makes the re-executed test binary the owner of background
// handlers, as `quiver hook collect` is.
const asOwner = "QUIVER_TEST_AS_OWNER"

// ownerRunner is a Runner over hooks whose background handlers go to a
// real owner process (this test binary); exited hears each owner end.
func ownerRunner(t *testing.T, set ...discovery.Hook) (r *Runner, exited <-chan error) {
	t.Helper()
	if !async.Supported {
		t.Skip("no background owner on this system")
	}
	ch := make(chan error, 16)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r = &Runner{
		Hooks: func(_ context.Context, event string) (discovery.EventHooks, error) {
			var hs []discovery.Hook
			for _, h := range set {
				if q, _ := format.QuiverEvent(h.Handler.Event); q == event {
					hs = append(hs, h)
				}
			}
			return discovery.EventHooks{Hooks: hs}, nil
		},
		Executor: Executor{ProjectDir: t.TempDir()},
		StateDir: t.TempDir(),
		Owner: &async.Owner{
			Command: func() *exec.Cmd {
				cmd := exec.Command(exe)
				cmd.Env = append(os.Environ(), asOwner+"=1")
				return cmd
			},
			Exited: func(err error) { ch <- err },
		},
	}
	return r, ch
}

// claudeHook is a Claude handler for event running command.
func claudeHook(name, claudeEvent, command string, hd format.Handler) discovery.Hook {
	hd.Event, hd.Type, hd.Command = claudeEvent, "command", command
	return discovery.Hook{Name: name, Status: discovery.Active, Format: discovery.FormatClaude, Handler: &hd}
}

// holders opens a FIFO for reading: opened closes once a handler opened
// it to write (as its fd 3), ended once every process holding it is dead.
func holders(path string) (opened, ended <-chan struct{}) {
	o, e := make(chan struct{}), make(chan struct{})
	go func() {
		f, err := os.Open(path)
		close(o)
		if err == nil {
			io.Copy(io.Discard, f)
			f.Close()
		}
		close(e)
	}()
	return o, e
}

func texts(l *[]Text) string {
	if l == nil {
		return "<nil>"
	}
	var s []string
	for _, x := range *l {
		s = append(s, x.Hook+"="+x.Text)
	}
	return strings.Join(s, " | ")
}

func statuses(res *Result) string {
	var s []string
	for _, h := range res.Hooks {
		s = append(s, h.Name+":"+string(h.Status))
	}
	return strings.Join(s, " ")
}

var session1 = Payload{fieldSessionID: []byte(`"s-1"`)}

// TestRunDoesNotWaitForBackgroundHandlers: hook run answers while a
// declared async handler and one that turned asynchronous by its first
// line still run (each waits on a FIFO that the test writes only after
// the answer); each is reported async; the session's next event carries
// what they said, in precedence order, exactly once.
func TestRunDoesNotWaitForBackgroundHandlers(t *testing.T) {
	declared, firstLine := testkit.FIFO(t, t.TempDir(), "declared"), testkit.FIFO(t, t.TempDir(), "first-line")
	r, exited := ownerRunner(t,
		claudeHook("p/quick", "SessionStart", `echo '{"systemMessage": "quick"}'`, format.Handler{}),
		claudeHook("p/first-line", "SessionStart", `echo '{"async": true, "asyncTimeout": 60000}'; read x < `+firstLine+`; echo '{"systemMessage": "first-line done"}'`, format.Handler{}),
		claudeHook("p/declared", "SessionStart", `read x < `+declared+`; echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "declared done"}}'`, format.Handler{Async: true}),
		claudeHook("p/prompt", "UserPromptSubmit", `true`, format.Handler{}),
	)
	res, err := r.Run(t.Context(), format.SessionStart, session1, false, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := statuses(res), "p/quick:ok p/first-line:async p/declared:async"; got != want {
		t.Errorf("hooks %s, want %s", got, want)
	}
	if got := texts(res.Notices); got != "p/quick=quick" {
		t.Errorf("notices %s", got)
	}
	testkit.LetGo(t, declared)
	testkit.LetGo(t, firstLine)
	if err := <-exited; err != nil {
		t.Fatalf("owner: %v", err)
	}
	payload := Payload{fieldSessionID: []byte(`"s-1"`), "prompt": []byte(`"hi"`)}
	res, err = r.Run(t.Context(), format.UserMessageSend, payload, false, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(res.Context); got != "p/declared=declared done" {
		t.Errorf("context %s", got)
	}
	if got := texts(res.Notices); got != "p/first-line=first-line done" {
		t.Errorf("notices %s", got)
	}
	res, _ = r.Run(t.Context(), format.UserMessageSend, payload, false, time.Minute)
	if texts(res.Context)+texts(res.Notices) != "" {
		t.Errorf("delivered twice: %s %s", texts(res.Context), texts(res.Notices))
	}
	other := Payload{fieldSessionID: []byte(`"s-2"`)}
	if res, _ := r.Run(t.Context(), format.UserMessageSend, other, false, time.Minute); texts(res.Context) != "" {
		t.Errorf("another session got %s", texts(res.Context))
	}
}

// TestSessionEndKillsPendingHandlers: session_end kills what still runs
// of the session in the background, its group too, and removes the
// session's folder.
func TestSessionEndKillsPendingHandlers(t *testing.T) {
	held := testkit.FIFO(t, t.TempDir(), "held")
	r, exited := ownerRunner(t,
		claudeHook("p/pending", "SessionStart", `exec 3>`+held+`; sleep 1000 & wait`, format.Handler{Async: true}),
	)
	opened, ended := holders(held)
	if _, err := r.Run(t.Context(), format.SessionStart, session1, false, time.Minute); err != nil {
		t.Fatal(err)
	}
	<-opened
	if _, err := r.Run(t.Context(), format.SessionEnd, session1, false, time.Minute); err != nil {
		t.Fatal(err)
	}
	<-ended
	<-exited
	if entries, _ := os.ReadDir(filepath.Join(r.StateDir, "async")); len(entries) != 0 {
		t.Errorf("left in async/: %v", entries)
	}
}

// TestFirstLineTimeoutKills: a handler that went background by its first
// line is killed at its asyncTimeout, with its group, and says nothing.
func TestFirstLineTimeoutKills(t *testing.T) {
	held := testkit.FIFO(t, t.TempDir(), "held")
	r, exited := ownerRunner(t,
		claudeHook("p/slow", "SessionStart", `exec 3>`+held+`; echo '{"async": true, "asyncTimeout": 30}'; sleep 1000 & wait`, format.Handler{}),
	)
	_, ended := holders(held)
	res, err := r.Run(t.Context(), format.SessionStart, session1, false, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res); got != "p/slow:async" {
		t.Errorf("hooks %s", got)
	}
	<-ended
	<-exited
	res, _ = r.Run(t.Context(), format.UserMessageSend, session1, false, time.Minute)
	if texts(res.Context)+texts(res.Notices) != "" {
		t.Errorf("a killed handler said %s %s", texts(res.Context), texts(res.Notices))
	}
}

// TestNoOwnerWaits: when no owner can be started, the run waits for its
// background handlers (bounded by their timeouts) and gives what they
// said to this event.
func TestNoOwnerWaits(t *testing.T) {
	// The first-line handler waits for the declared one, which starts
	// only once the first is in the background.
	order := testkit.FIFO(t, t.TempDir(), "order")
	r, _ := ownerRunner(t,
		claudeHook("p/declared", "SessionStart", `echo go > `+order+`; echo '{"systemMessage": "declared done"}'`, format.Handler{Async: true}),
		claudeHook("p/first-line", "SessionStart", `echo '{"async": true}'; read x < `+order+`; echo '{"systemMessage": "first-line done"}'`, format.Handler{}),
	)
	r.Owner.Command = func() *exec.Cmd { return exec.Command(filepath.Join(t.TempDir(), "missing")) }
	var warned []string
	r.Warn = func(s string) { warned = append(warned, s) }
	res, err := r.Run(t.Context(), format.SessionStart, session1, false, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(res.Notices); got != "p/declared=declared done | p/first-line=first-line done" {
		t.Errorf("notices %s", got)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "waiting for the background handlers instead") {
		t.Errorf("warnings %q", warned)
	}
}
