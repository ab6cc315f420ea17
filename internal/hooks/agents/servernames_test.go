package agents

import (
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Gemini CLI names tools mcp_SERVER_TOOL and cuts them past 63
// characters, after which the server's approval rules no longer match
// (issue 42, defect 10): server names stay within the agent's budget,
// each one distinct.
func TestServerKeysKeepTheAgentsLimit(t *testing.T) {
	declared := map[string][]string{
		"claude-plugins-official/playwright": {"playwright"},
		"acme/tools":                         {"docs"},
		"claude-plugins-official/github":     {"github", "github-enterprise-server-mirror"},
		"other-org/github":                   {"github"},
	}
	var ps []plugins.Plugin
	for _, name := range []string{"claude-plugins-official/playwright", "acme/tools", "claude-plugins-official/github", "other-org/github"} {
		n, err := plugins.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, plugins.Plugin{Name: n})
	}
	servers := func(p plugins.Plugin) []plugins.Server {
		var out []plugins.Server
		for _, s := range declared[p.Name.String()] {
			out = append(out, plugins.Server{Name: s})
		}
		return out
	}
	got := serverKeys(ps, 24, servers)
	want := map[string]string{
		"claude-plugins-official-playwright-playwright": "playwright",
		"acme-tools-docs":                       "acme-tools-docs",
		"claude-plugins-official-github-github": "github",
		"other-org-github-github":               "other-org-github-github",
	}
	seen := map[string]string{}
	for full, name := range got {
		if len(name) > 24 {
			t.Errorf("%s is named %s, longer than 24", full, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("%s and %s are both named %s", full, other, name)
		}
		seen[name] = full
		if w, ok := want[full]; ok && w != name {
			t.Errorf("%s is named %s, want %s", full, name, w)
		}
	}
	// Neither github-github-enterprise-server-mirror nor its server name
	// fits: the name is cut and made distinct with a hash of the whole.
	if cut := got["claude-plugins-official-github-github-enterprise-server-mirror"]; !strings.HasPrefix(cut, "claude-plugins-o") || len(cut) != 24 {
		t.Errorf("the long name became %q", cut)
	}
	if len(got) != 5 {
		t.Errorf("got %d names, want 5: %v", len(got), got)
	}
	if all := serverKeys(ps, 0, servers); all["claude-plugins-official-playwright-playwright"] != "claude-plugins-official-playwright-playwright" {
		t.Errorf("without a budget: %v", all)
	}
}
