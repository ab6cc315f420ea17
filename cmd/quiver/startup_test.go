package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// quiverBinary builds quiver from this checkout into the test's own
// folder, without the network (the build cache makes a second one quick).
func quiverBinary(t *testing.T) string {
	t.Helper()
	built := filepath.Join(t.TempDir(), "quiver")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", built, ".")
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return built
}

// TestStartRunsNoCodeOfOurs: none of quiver's own packages does anything
// when a quiver starts (issue 30): its tables and patterns are built at
// first use (internal/lazy) or laid out by the compiler, so `version`,
// and every hook run, pays only for its dependencies' initialisation.
// The Go runtime lists each package whose initialisation runs code.
func TestStartRunsNoCodeOfOurs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds quiver")
	}
	cmd := exec.Command(quiverBinary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quiver version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "init runtime") && !strings.Contains(string(out), "init os @") {
		t.Fatalf("GODEBUG=inittrace=1 printed no trace:\n%s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "init github.com/quiver-cli/") {
			t.Errorf("a package of ours runs code at start-up: %s", line)
		}
	}
}

// TestStartLinksNoGitLibrary keeps the git library out of the quiver that
// agents start at every event (issue 30): every linked package's init runs
// in every hook run, and go-git's (encoding/gob, openpgp's curves,
// x/crypto/ssh, its URL regexps) took a quarter of quiver's start. Git
// work goes through the helper, quiver-git (plugins.GitRequest).
func TestStartLinksNoGitLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	heavy := []string{
		"github.com/go-git/", "github.com/ProtonMail/", "github.com/cloudflare/circl",
		"golang.org/x/crypto/ssh", "github.com/kevinburke/ssh_config", "encoding/gob",
		"github.com/quiver-cli/quiver/internal/plugins/gitwork",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if strings.HasPrefix(pkg, h) {
				t.Errorf("quiver links %s: git work belongs in quiver-git (internal/plugins/gitwork)", pkg)
			}
		}
	}
}
