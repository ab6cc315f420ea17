package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks/async"
	"github.com/quiver-cli/quiver/internal/proc"
)

// The test binary doubles as every fake hook: run with QUIVER_FAKE_HOOK=1
// it behaves according to the last segment of QUIVER_HOOK_NAME, which the
// executor sets. This gives exact, shell-free hooks, as os/exec's own tests
// do.
func TestMain(m *testing.M) {
	if os.Getenv("QUIVER_FAKE_HOOK") == "1" {
		os.Exit(fakeHook(path.Base(os.Getenv("QUIVER_HOOK_NAME")), os.Args[1:]))
	}
	if os.Getenv(asOwner) == "1" { // quiver's `hook collect`
		if err := async.Collect(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Endless writers are killed soon after their cap, not half a
	// second later: the hostile tests run dozens of them.
	proc.OverflowGrace = 20 * time.Millisecond
	os.Exit(m.Run())
}

func fakeHook(name string, args []string) int {
	if len(args) > 0 && args[0] == "hook" {
		fmt.Println("before_tool_call")
		return 0
	}
	reply := func(v any) int {
		json.NewEncoder(os.Stdout).Encode(v)
		return 0
	}
	payload := func() map[string]any {
		var p map[string]any
		json.NewDecoder(os.Stdin).Decode(&p)
		return p
	}
	switch {
	case name == "allow":
		return 0
	case name == "block":
		return reply(map[string]any{"blocked": true, "reason": "no way"})
	case name == "block-no-reason":
		return reply(map[string]any{"blocked": true})
	case name == "block2":
		fmt.Fprintln(os.Stderr, "  exit two says no  ")
		return 2
	case name == "unblock":
		return reply(map[string]any{"blocked": false})
	case name == "rewrite-input":
		p := payload()
		return reply(map[string]any{"input": map[string]any{"command": "safe", "was": p["tool_input"]}})
	case name == "rewrite-output":
		p := payload()
		return reply(map[string]any{"output": fmt.Sprintf("redacted(%v)", p["tool_output"])})
	case strings.HasPrefix(name, "followup-"):
		return reply(map[string]any{"follow_up_messages": []string{"from " + strings.TrimPrefix(name, "followup-")}})
	case name == "echo":
		env := map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "QUIVER_") {
				env[k] = v
			}
		}
		wd, _ := os.Getwd()
		return reply(map[string]any{"output": map[string]any{"env": env, "payload": payload(), "cwd": wd}})
	case name == "fail":
		fmt.Fprintln(os.Stderr, "boom")
		return 1
	case name == "garbage":
		fmt.Print("not json at all")
		return 0
	case name == "array":
		fmt.Print(`["a"]`)
		return 0
	case name == "huge":
		chunk := strings.Repeat("x", 64<<10)
		for range 32 { // 2 MiB
			if _, err := io.WriteString(os.Stdout, chunk); err != nil {
				return 0
			}
		}
		return 0
	case name == "huge-stderr":
		os.Stderr.WriteString(strings.Repeat("e", 1<<20))
		return 1
	case name == "sleep":
		time.Sleep(60 * time.Second)
		return 0
	case name == "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(60 * time.Second)
		return 0
	case name == "grandchild":
		// A child that keeps our stdout open long after we are gone.
		c := exec.Command("sleep", "60")
		c.Stdout = os.Stdout
		c.Start()
		os.WriteFile(os.Getenv("FAKE_PID_FILE"), []byte(fmt.Sprint(c.Process.Pid)), 0o644)
		if os.Getenv("FAKE_EXIT_EARLY") == "1" {
			return 0
		}
		time.Sleep(60 * time.Second)
		return 0
	case name == "no-stdin":
		os.Stdin.Close()
		return reply(map[string]any{"blocked": false})
	}
	if code, ok := hostileHook(name); ok {
		return code
	}
	fmt.Fprintf(os.Stderr, "unknown fake hook %q\n", name)
	return 1
}

// hostileHook holds the fake hooks that misbehave on purpose (see
// hostile_test.go); ok is false for a name it does not know.
func hostileHook(name string) (code int, ok bool) {
	pidFile := func(pid int) {
		if f := os.Getenv("FAKE_PID_FILE"); f != "" {
			os.WriteFile(f, []byte(fmt.Sprint(pid)), 0o644)
		}
	}
	forever := func(w io.Writer) int {
		chunk := []byte(strings.Repeat("x", 64<<10)) // no newline anywhere
		for {
			if _, err := w.Write(chunk); err != nil {
				return 0
			}
		}
	}
	switch name {
	case "infinite":
		return forever(os.Stdout), true
	case "infinite-stderr":
		return forever(os.Stderr), true
	case "infinite-fork":
		// A child in our process group writes stdout forever; we leave.
		c := exec.Command(os.Args[0], "run")
		c.Env = append(os.Environ(), "QUIVER_HOOK_NAME=infinite")
		c.Stdout = os.Stdout
		if err := c.Start(); err != nil {
			return 1, true
		}
		pidFile(c.Process.Pid)
		return 0, true
	case "no-newline":
		fmt.Print(`{"input":{"newline":false}}`)
		return 0, true
	case "long-line":
		os.Stdout.WriteString(strings.Repeat("a", 512<<10))
		return 0, true
	case "binary", "binary-object":
		b := make([]byte, 256<<10)
		for i := range b {
			b[i] = byte(i*131 + i/7) // every byte value, NULs and invalid UTF-8 included
		}
		if name == "binary-object" {
			b[0] = '{'
		}
		os.Stdout.Write(b)
		return 0, true
	case "daemon":
		// A background child that holds none of our pipes and outlives us.
		c := exec.Command("sleep", "60")
		if err := c.Start(); err != nil {
			return 1, true
		}
		pidFile(c.Process.Pid)
		return 0, true
	case "hold-stdin":
		// A child that inherits stdin and never reads it; we leave at once.
		c := exec.Command("sleep", "60")
		c.Stdin = os.Stdin
		if err := c.Start(); err != nil {
			return 1, true
		}
		pidFile(c.Process.Pid)
		return 0, true
	case "read-some-close":
		buf := make([]byte, 4<<10)
		io.ReadFull(os.Stdin, buf)
		os.Stdin.Close()
		fmt.Println(`{"output":"read some"}`)
		return 0, true
	case "self-delete":
		exe, err := os.Executable()
		if err != nil {
			return 1, true
		}
		if err := os.Remove(exe); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		fmt.Println(`{"output":"deleted myself"}`)
		return 0, true
	}
	return 0, false
}
