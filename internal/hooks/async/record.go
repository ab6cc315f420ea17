package async

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks/claude"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Record is what a background handler said that reaches the agent: as
// Claude takes from an asynchronous hook, its systemMessage (Notice) and
// additionalContext (Context), or an asyncRewake's exit-2 message
// (Context: for the model); Status and Error say how it ended.
type Record struct {
	Hook    string `json:"hook"`
	Order   int    `json:"order"`
	Event   string `json:"event"`
	Status  string `json:"status"`
	Context string `json:"context,omitempty"`
	Notice  string `json:"notice,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Record statuses (hooks.Status's words).
const (
	statusOK       = "ok"
	statusNoAction = "no_action"
	statusFailed   = "failed"
	statusTimeout  = "timeout"
)

// record reads what a job's process did as a synchronous answer is read
// (claude.Output), keeping only what an asynchronous answer may say.
// Exit codes of handed-over handlers are unknown (0): Claude reads their
// answer whatever they exit with.
func record(j Job, r proc.Result) Record {
	rec := Record{Hook: j.Hook, Order: j.Order, Event: j.Event, Status: statusOK}
	fail := func(status, msg string) Record {
		rec.Status, rec.Error = status, msg
		if s := strings.TrimSpace(string(r.Stderr)); s != "" {
			rec.Error += ": " + safefs.Cut(s, 1<<10)
		}
		return rec
	}
	switch {
	case r.StartErr != nil:
		return fail(statusFailed, fmt.Sprintf("cannot run it: %v", r.StartErr))
	case r.TimedOut:
		return fail(statusTimeout, fmt.Sprintf("killed at its timeout (%s)", j.timeout()))
	case r.ExitCode == 2 && j.Rewake:
		// As Claude reads an asyncRewake handler: exit 2 wakes the model
		// with its stderr (else stdout) after its message.
		said := strings.TrimSpace(string(r.Stderr))
		if said == "" {
			said = strings.TrimSpace(string(r.Stdout))
		}
		rec.Context = safefs.Cut(strings.TrimSpace(j.RewakeMessage+" "+said), MaxText)
		return rec
	case r.StdoutOverflow:
		return fail(statusFailed, fmt.Sprintf("stdout exceeded %d bytes", MaxStdout))
	case r.OutputIncomplete:
		return fail(statusFailed, "its output did not end when it exited")
	case r.ExitCode < 0:
		return fail(statusFailed, "killed by a signal")
	case r.ExitCode != 0:
		return fail(statusFailed, fmt.Sprintf("exit status %d", r.ExitCode))
	}
	answer := answerOf(r.Stdout, j.handedOver())
	if answer == nil {
		rec.Status = statusNoAction
		return rec
	}
	event := j.Event
	if event == "" {
		event = format.SessionStart
	}
	cr := claude.Output(event, j.ClaudeEvent, 0, answer, r.Stderr)
	if cr.Action == claude.Fail {
		rec.Status, rec.Error = statusFailed, cr.Error
		return rec
	}
	rec.Context, rec.Notice = safefs.Cut(cr.Context, MaxText), safefs.Cut(cr.Notice, MaxText)
	if rec.Context == "" && rec.Notice == "" {
		rec.Status = statusNoAction
	}
	return rec
}

// answerOf finds a background handler's answer in its stdout: the whole
// of it when it is one JSON object (a pretty-printed one too), else, as
// Claude looks, the first line that is a JSON object without "async"
// (skipping the line that sent a handler to the background). Plain text
// is no answer: Claude takes only JSON from an asynchronous hook.
func answerOf(stdout []byte, skipFirst bool) []byte {
	if skipFirst {
		_, stdout, _ = bytes.Cut(stdout, []byte("\n"))
	}
	isAnswer := func(b []byte) bool {
		b = bytes.TrimSpace(b)
		var obj map[string]json.RawMessage
		if !bytes.HasPrefix(b, []byte("{")) || json.Unmarshal(b, &obj) != nil {
			return false
		}
		_, async := obj["async"]
		return !async
	}
	if isAnswer(stdout) {
		return bytes.TrimSpace(stdout)
	}
	for line := range bytes.SplitSeq(stdout, []byte("\n")) {
		if isAnswer(line) {
			return bytes.TrimSpace(line)
		}
	}
	return nil
}

// timeout is how long the job could run: for a display.
func (j Job) timeout() string {
	if j.Timeout > 0 {
		return j.Timeout.String()
	}
	return "its deadline"
}
