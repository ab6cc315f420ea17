package main

import (
	"os/exec"
	"strings"
	"testing"
)

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
