package hooks

import (
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
)

// The test binary doubles as every fake hook: run with QUIVER_FAKE_HOOK=1
// it behaves according to the last segment of QUIVER_HOOK_NAME, which the
// executor sets. This gives exact, shell-free hooks, as os/exec's own tests
// do.
func TestMain(m *testing.M) {
	if os.Getenv("QUIVER_FAKE_HOOK") == "1" {
		os.Exit(fakeHook(path.Base(os.Getenv("QUIVER_HOOK_NAME")), os.Args[1:]))
	}
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
	fmt.Fprintf(os.Stderr, "unknown fake hook %q\n", name)
	return 1
}
