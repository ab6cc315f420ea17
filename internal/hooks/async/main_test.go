package async

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// asCollector makes the re-executed test binary run Collect, as quiver's
// `hook collect` does.
const asCollector = "QUIVER_TEST_AS_COLLECTOR"

func TestMain(m *testing.M) {
	if os.Getenv(asCollector) == "1" {
		if err := Collect(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCollectStartsNothingUntilItIsLetGo: an owner that has said it took
// its order (fd 4) starts none of its jobs until fd 3 ends, which Launch
// makes happen only once it heard that in time. One killed between the
// two has run nothing, so the hook run that gave up on it can run the
// jobs itself without running any twice (attack on the
// acknowledgement: an owner that answered just after Launch's deadline
// ran its jobs, and so did the hook run).
func TestCollectStartsNothingUntilItIsLetGo(t *testing.T) {
	if !Supported {
		t.Skip("no owner on this system")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, letGo := range []bool{false, true} {
		t.Run(fmt.Sprintf("let go %v", letGo), func(t *testing.T) {
			ran := filepath.Join(t.TempDir(), "ran")
			order, err := json.Marshal(Order{Run: "r", Jobs: []Job{shJob("d", "echo ran >> "+ran, time.Minute)}})
			if err != nil {
				t.Fatal(err)
			}
			orderR, orderW, _ := os.Pipe()
			ackR, ackW, _ := os.Pipe()
			defer orderW.Close()
			defer ackR.Close()
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), asCollector+"=1")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			cmd.ExtraFiles = []*os.File{orderR, ackW}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			orderR.Close()
			ackW.Close()
			orderW.Write(order)
			if err := taken(ackR); err != nil {
				t.Fatalf("no acknowledgement: %v", err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			if !letGo {
				// It must not go on by itself: one that did would run its
				// job and end within milliseconds. Half a second bounds
				// the look for what must never happen; then it is killed.
				select {
				case <-exited:
					t.Error("the owner went on before it was let go")
				case <-time.After(500 * time.Millisecond):
					cmd.Process.Kill()
					<-exited
				}
				if _, err := os.Stat(ran); err == nil {
					t.Error("the owner ran a job before it was let go")
				}
				return
			}
			orderW.Close()
			if err := <-exited; err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(ran); string(data) != "ran\n" {
				t.Errorf("the job ran %q, want once", data)
			}
		})
	}
}
