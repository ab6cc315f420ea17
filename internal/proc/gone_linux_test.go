package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// checkGone fails unless the process whose pid data holds ends within
// ten seconds (a bound, not a wait: it returns as soon as it has). A
// pidfd's poll wakes when the process exits, zombie or not.
func checkGone(t *testing.T, data []byte) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid %q: %v", data, err)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // reaped already
	}
	defer unix.Close(fd)
	if n, _ := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000); n == 0 {
		state, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the hook's child %d still runs: %s", pid, state)
	}
}
