package format

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestMatcher(t *testing.T) {
	tests := []struct {
		matcher, value string
		want           bool
	}{
		{"", "Bash", true},
		{"*", "anything", true},
		{"Bash", "Bash", true},
		{"Bash", "BashOutput", false}, // plain names are exact
		{"Edit|Write", "Write", true},
		{"Edit|Write", "NotebookEdit", false},
		{"^Notebook", "NotebookEdit", true}, // a regexp is searched, not anchored
		{"Notebook.*", "NotebookEdit", true},
		{"mcp__.*", "mcp__github__search", true},
		{"mcp__.*", "Bash", false},
		{"Edit|Write|MultiEdit", "MultiEdit", true},
		{"startup|clear|compact", "resume", false},
		{"startup|clear|compact", "compact", true},
		{"Write.*", "NotebookWrite", true},
	}
	for _, tt := range tests {
		m, err := CompileMatcher(tt.matcher)
		if err != nil {
			t.Fatalf("%q: %v", tt.matcher, err)
		}
		if got := m.Match(tt.value); got != tt.want {
			t.Errorf("matcher %q on %q = %v, want %v", tt.matcher, tt.value, got, tt.want)
		}
	}
	if _, err := CompileMatcher("Bash("); err == nil {
		t.Error("a matcher that does not compile must be an error")
	}
}

func TestCondition(t *testing.T) {
	const cwd, project, home = "/p/sub", "/p", "/home/u"
	tests := []struct {
		cond, tool, input string
		want              bool
	}{
		{"Bash", "Bash", `{"command":"ls"}`, true},
		{"Bash", "Edit", `{}`, false},
		{"Bash(*)", "Bash", `{"command":"ls"}`, true},
		{"Bash(git commit:*)", "Bash", `{"command":"git commit -m x"}`, true},
		{"Bash(git commit:*)", "Bash", `{"command":"git commit"}`, true},
		{"Bash(git commit:*)", "Bash", `{"command":"git committed"}`, false},
		{"Bash(git commit:*)", "Bash", `{"command":"echo; git commit"}`, true}, // every part is guarded
		{"Bash(npm run *)", "Bash", `{"command":"npm run test"}`, true},
		{"Bash(npm run *)", "Bash", `{"command":"npm runner"}`, false},
		{"Bash(ls*)", "Bash", `{"command":"lsof -i"}`, true},
		{"Bash(rm -rf /)", "Bash", `{"command":"rm -rf /"}`, true},
		{"Bash(rm -rf /)", "Bash", `{"command":"rm -rf /tmp"}`, false},
		{"Bash(* --force)", "Bash", `{"command":"git push --force"}`, true},
		{"Edit(*.ts)", "Edit", `{"file_path":"/p/src/a.ts"}`, true},
		{"Edit(*.ts)", "Edit", `{"file_path":"/p/src/a.tsx"}`, false},
		{"Edit(*.ts)", "Write", `{"file_path":"/p/src/a.ts"}`, false},
		{"Write(/src/**)", "Write", `{"file_path":"/p/src/x/y.go"}`, true},
		{"Write(/src/**)", "Write", `{"file_path":"/p/docs/y.go"}`, false},
		{"Read(//etc/*)", "Read", `{"file_path":"/etc/passwd"}`, true},
		{"Read(~/.ssh/**)", "Read", `{"file_path":"/home/u/.ssh/id_rsa"}`, true},
		{"Read(./secrets/*)", "Read", `{"file_path":"/p/sub/secrets/a"}`, true},
		{"Read(./secrets/*)", "Read", `{"file_path":"/p/secrets/a"}`, false},
		{"Edit(src/**/*.go)", "Edit", `{"file_path":"src/a/b/c.go"}`, true},
		{"NotebookEdit(*.ipynb)", "NotebookEdit", `{"notebook_path":"/p/n.ipynb"}`, true},
		// As Claude's gitignore matcher: a folder at any depth, case ignored,
		// "./x" without a slash at any depth too; and the raw path for a rule
		// that starts with "*" or has no wildcard.
		{"Edit(node_modules)", "Edit", `{"file_path":"/p/sub/a/node_modules/x/y.js"}`, true},
		{"Edit(./x.go)", "Edit", `{"file_path":"/p/sub/a/b/x.go"}`, true},
		{"Edit(*.GO)", "Edit", `{"file_path":"/p/sub/x.go"}`, true},
		{"Edit(*/gen/*.go)", "Edit", `{"file_path":"/other/gen/x.go"}`, true},
		{"Edit(/etc/hosts)", "Edit", `{"file_path":"/etc/hosts"}`, true},
		{"Edit(/etc/hosts)", "Edit", `{"file_path":"/etc/../etc/hosts"}`, true}, // Claude: false (the raw path)
		{"Edit(/etc/hosts)", "Edit", `{"file_path":"/etc/hostsx"}`, false},
		{"Edit(src/*)", "Edit", `{"file_path":"/p/sub/src"}`, false},
		{"Edit()", "Edit", `{"file_path":"/anything"}`, true},
		{"WebFetch(domain:example.com)", "WebFetch", `{"url":"https://docs.example.com/x"}`, true},
		{"WebFetch(domain:example.com)", "WebFetch", `{"url":"https://evil-example.com/x"}`, false},
		{"WebFetch(domain:example.com)", "WebFetch", `{"url":"https://example.com./x"}`, true},
		// URLs a browser-style parser reads otherwise than Go's: the
		// guard runs (third attack review of contract v3).
		{"WebFetch(domain:evil.com)", "WebFetch", `{"url":"https://evil.com\\@good.example/"}`, true},
		{"WebFetch(domain:evil.com)", "WebFetch", `{"url":" https://evil.com/"}`, true},
		{"WebFetch(domain:evil.com)", "WebFetch", `{"url":"https://ev\til.com/"}`, true},
		{"WebFetch(domain:evil.com)", "WebFetch", `{"url":"https://%65vil.com/"}`, true},
		{"WebFetch(domain:evil.com)", "WebFetch", `{"url":"https://ｅvil.com/"}`, true},
		{"WebFetch(domain:evil.com)", "WebFetch", `{"url":"https://user@evil.com/"}`, true},
		{"WebFetch(domain:evil.com)", "WebFetch", `{"url":"https://good.example/"}`, false},
		{"mcp__github", "mcp__github__search", `{}`, true},
		// Old tool names are the tool's (Claude's aliases).
		{"Task", "Agent", `{}`, true},
		{"KillShell", "KillBash", `{}`, true},
		// Glob and Grep: the rule's wildcard on the call's pattern,
		// anchored, without collapsing blanks.
		{"Grep(TODO*)", "Grep", `{"pattern":"TODO: x"}`, true},
		{"Grep(TODO*)", "Grep", `{"pattern":"a TODO"}`, false},
		{"Grep(a b)", "Grep", `{"pattern":"a  b"}`, false},
		{"Glob(**/*.go)", "Glob", `{"pattern":"src/**/*.go"}`, true},
		{"Glob(*.go)", "Glob", `{"path":"x.go"}`, false},
		{"mcp__github", "mcp__gitlab__search", `{}`, false},
	}
	for _, tt := range tests {
		c, err := ParseCondition(tt.cond)
		if err != nil {
			t.Fatalf("%q: %v", tt.cond, err)
		}
		if got := c.Match(tt.tool, json.RawMessage(tt.input), cwd, project, home); got != tt.want {
			t.Errorf("%q on %s %s = %v, want %v", tt.cond, tt.tool, tt.input, got, tt.want)
		}
	}
	for _, bad := range []string{"WebSearch(news)", "Task(review)", "PowerShell(ls)", "WebFetch(example.com)", "mcp__x(y)", "Bash(",
		"not a rule", " Bash", `Bash(ls\)`,
		"Edit(a[*]b)", `Read(\s*)`} {
		if _, err := ParseCondition(bad); err == nil {
			t.Errorf("condition %q must be refused, never treated as always true", bad)
		}
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte(`{"description":"d","hooks":{
		"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"a","timeout":10},{"type":"prompt","prompt":"p"}]},
		              {"hooks":[{"type":"command","command":"b","if":"WebSearch(x)"}]}],
		"Notification":[{"hooks":[{"type":"command","command":"n"}]}],
		"Stop":[{"hooks":[{"type":"command","command":"s","async":true,"shell":"powershell"}]}],
		"PostToolUse":[{"matcher":"(","hooks":[{"type":"command","command":"p"}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range c.Handlers {
		got = append(got, h.ItemName()+" "+h.Problem)
	}
	want := []string{
		"hooks.json/Notification.1 ",
		"hooks.json/PostToolUse.1 matcher \"(\" is not a valid regular expression: error parsing regexp: missing closing ): `(`",
		"hooks.json/PreToolUse.1 ",
		"hooks.json/PreToolUse.2 needs Claude Code's model",
		"hooks.json/PreToolUse.3 condition \"WebSearch(x)\" cannot be evaluated by quiver: specifiers of WebSearch are not understood",
		"hooks.json/Stop.1 shell \"powershell\" is not supported (quiver runs commands with bash)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("handlers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.Handlers[2].Timeout != 10*time.Second || c.Handlers[2].Matcher != "Bash" || !c.Handlers[5].Async {
		t.Errorf("fields lost: %+v", c.Handlers)
	}
	for _, bad := range []string{`[]`, `{"hooks":[]}`, `{"hooks":{"Stop":{}}}`, `{"hooks":{"Stop":[{"hooks":[{"type":1}]}]}}`,
		`{"hooks":{"../x":[]}}`} {
		if _, err := ParseConfig([]byte(bad)); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}
