package format

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notesCases are the `if` facts measured from Claude Code 2.1.328 (the
// notes on Claude's hooks, section C, and the functions it names: e2o,
// Xse, R0t, Q_o), one case each, with what Claude does and why.
var notesCases = []struct {
	cond, tool, input string
	want              bool
	why               string
}{
	// `Tool` or `Tool(content)`; the tool name must match; no content matches.
	{"Bash", "Bash", `{"command":"rm -rf /"}`, true, "no content: any call of the tool"},
	{"Bash()", "Bash", `{"command":"ls"}`, true, "empty content is no content (Dr)"},
	{"Bash(*)", "Bash", `{"command":"ls"}`, true, `"*" is no content (Dr)`},
	{"Bash(git push *)", "Edit", `{"command":"git push"}`, false, "the tool name must match"},
	{"Edit", "Write", `{"file_path":"/p/a"}`, false, "the tool name must match"},
	{"Task", "Agent", `{}`, true, "Task is an old name of Agent (Kl): one tool"},
	{"Agent", "Task", `{}`, true, "and a call may still name it Task"},
	{"KillBash", "TaskStop", `{}`, true, "KillBash is an old name of TaskStop"},

	// Bash: every simple command, assignments and redirections dropped,
	// quotes removed; the hook runs if ANY matches.
	{"Bash(git push *)", "Bash", `{"command":"ls && git push"}`, true, "the second command of &&"},
	{"Bash(git push *)", "Bash", `{"command":"FOO=1 git push"}`, true, "a leading assignment is no word"},
	{"Bash(git commit *)", "Bash", `{"command":"cd x && git commit"}`, true, "after cd, and bare (the trailing ' *')"},
	{"Bash(git push *)", "Bash", `{"command":"a | git push"}`, true, "either side of a pipe"},
	{"Bash(git push *)", "Bash", `{"command":"a || git push"}`, true, "||"},
	{"Bash(git push *)", "Bash", `{"command":"a; git push"}`, true, ";"},
	{"Bash(git push *)", "Bash", `{"command":"a\ngit push"}`, true, "a newline"},
	{"Bash(git push *)", "Bash", `{"command":"(cd x && git push)"}`, true, "a subshell"},
	{"Bash(git push *)", "Bash", `{"command":"git push origin main 2>&1 >log"}`, true, "redirections are no words"},
	{"Bash(git push *)", "Bash", `{"command":"'git' \"push\" origin"}`, true, "quotes are removed"},
	{"Bash(git push *)", "Bash", `{"command":"bash -c \"git push\""}`, false, "the inner line is an argument of bash"},
	{"Bash(git push *)", "Bash", `{"command":"echo git push"}`, false, "anchored: the command is echo"},
	// x:* equals x, starts with "x ", or is xargs x.
	{"Bash(git push:*)", "Bash", `{"command":"git push"}`, true, "equals x"},
	{"Bash(git push:*)", "Bash", `{"command":"git push -f"}`, true, `starts with "x "`},
	{"Bash(git push:*)", "Bash", `{"command":"git pushy"}`, false, "x must end at a word"},
	{"Bash(git push:*)", "Bash", `{"command":"ls | xargs git push"}`, true, "xargs x"},
	// Else a glob: * is any text, anchored, blanks collapsed, a single
	// trailing " *" also takes the bare command.
	{"Bash(npm run *)", "Bash", `{"command":"npm run"}`, true, "the one trailing ' *' is optional"},
	{"Bash(npm * *)", "Bash", `{"command":"npm run"}`, false, "not when the rule has more stars"},
	{"Bash(npm run test)", "Bash", `{"command":"npm   run  test"}`, true, "blank runs are one space"},
	{"Bash(run test)", "Bash", `{"command":"npm run test"}`, false, "anchored at both ends"},
	{"Bash(*test*)", "Bash", `{"command":"npm run test:unit"}`, true, "* is any text"},
	// Unparseable: the matcher returns true, the hook runs.
	{"Bash(git push *)", "Bash", `{"command":"echo ${V}"}`, true, "${...} cannot be checked before it runs"},
	{"Bash(git push *)", "Bash", `{"command":"ls && echo $(date)"}`, true, "$(...) in a compound line"},
	{"Bash(git push *)", "Bash", `{"command":"cat <<EOF\nx\nEOF"}`, true, "a heredoc"},
	{"Bash(git push *)", "Bash", `{"command":"if true; then"}`, true, "a line that does not parse"},

	// File tools: gitignore-style below the root, and a glob fallback.
	{"Edit(*.ts)", "Edit", `{"file_path":"/p/sub/deep/a.ts"}`, true, "no slash: any depth below cwd"},
	{"Edit(*.ts)", "Edit", `{"file_path":"/elsewhere/a.ts"}`, true, "a rule starting with * also fits the raw path"},
	{"Edit(*.TS)", "Edit", `{"file_path":"/p/sub/a.ts"}`, true, "the gitignore match ignores case"},
	{"Edit(/src/**)", "Edit", `{"file_path":"/p/src/x/y.go"}`, true, "/x is below the project root"},
	{"Edit(/src/**)", "Edit", `{"file_path":"/p/sub/src/y.go"}`, false, "not below cwd"},
	{"Edit(src)", "Edit", `{"file_path":"/p/sub/a/src/b/c.go"}`, true, "a folder named src, at any depth"},
	{"Read(//etc/*)", "Read", `{"file_path":"/etc/passwd"}`, true, "//x is absolute"},
	{"Read(~/.ssh/**)", "Read", `{"file_path":"/home/u/.ssh/id_ed25519"}`, true, "~/x is in the home folder"},
	{"Read(/etc/hosts)", "Read", `{"file_path":"/etc/hosts"}`, true, "no wildcard: the raw path, exactly (fallback)"},
	{"Write(docs/*.md)", "Write", `{"file_path":"/p/sub/docs/a/b.md"}`, false, "* stays within a folder"},
	{"NotebookEdit(*.ipynb)", "NotebookEdit", `{"notebook_path":"/p/sub/n.ipynb"}`, true, "notebook_path"},
	// Glob and Grep: the glob on the call's pattern.
	{"Grep(TODO*)", "Grep", `{"pattern":"TODO: fix"}`, true, "the rule's glob on the pattern"},
	{"Grep(TODO*)", "Grep", `{"pattern":"// TODO"}`, false, "anchored"},
	{"Glob(**/*.go)", "Glob", `{"pattern":"internal/**/*.go"}`, true, "* is any text, across slashes"},
}

func TestConditionClaudeNotes(t *testing.T) {
	const cwd, project, home = "/p/sub", "/p", "/home/u"
	for _, tt := range notesCases {
		c, err := ParseCondition(tt.cond)
		if err != nil {
			t.Fatalf("%s: %v", tt.cond, err)
		}
		if got := c.Match(tt.tool, json.RawMessage(tt.input), cwd, project, home); got != tt.want {
			t.Errorf("%s on %s %s = %v, want %v: %s", tt.cond, tt.tool, tt.input, got, tt.want, tt.why)
		}
	}
}

// TestConditionSecurityGuidance runs the five `if` rules of the
// security-guidance plugin (anthropics/claude-plugins-official@340e33a,
// plugins/security-guidance/hooks/hooks.json: PostToolUse, matcher Bash,
// the same command behind each) on the commands a session makes. A line
// that meets two rules starts two handlers, as in Claude, where the
// handlers' `if` is part of what tells them apart.
func TestConditionSecurityGuidance(t *testing.T) {
	rules := []string{"Bash(git commit:*)", "Bash(git push:*)", "Bash(gt create:*)", "Bash(gt modify:*)", "Bash(gt submit:*)"}
	tests := []struct {
		command string
		want    string // the rules that match, by index
		why     string
	}{
		{`git commit -m "fix: parser"`, "0", "a commit"},
		{`git commit`, "0", "x alone"},
		{`git commit --amend --no-edit && git push origin HEAD`, "01", "a commit and a push: two handlers start"},
		{`cd repo && git add -A && git commit -am wip`, "0", "the last command of a chain"},
		{`GIT_AUTHOR_NAME=bot git commit -m x`, "0", "an assignment first"},
		{`git push --force-with-lease`, "1", "a push"},
		{`gt create -m "feat"`, "2", "Graphite's commit"},
		{`gt modify -a`, "3", "Graphite's amend"},
		{`gt submit --stack`, "4", "Graphite's push"},
		{`git status && git diff --stat`, "", "nothing to review"},
		{`git commit-tree HEAD^{tree}`, "", "x must end at a word"},
		{`git -C repo commit -m x`, "", "global options: the prefix is literal (the plugin's own comment says so)"},
		{`echo "git commit -m x"`, "", "a string is an argument"},
		{`gh pr create`, "", "pushes in a child process, which no rule sees"},
		{`git commit -m "$(cat msg.txt)"`, "01234", "$(...): cannot be checked, every guard runs"},
	}
	for _, tt := range tests {
		in, _ := json.Marshal(map[string]string{"command": tt.command})
		got := ""
		for i, r := range rules {
			c, err := ParseCondition(r)
			if err != nil {
				t.Fatal(err)
			}
			if c.Match("Bash", in, "/p", "/p", "/home/u") {
				got += fmt.Sprint(i)
			}
		}
		if got != tt.want {
			t.Errorf("%q matches rules %q, want %q: %s", tt.command, got, tt.want, tt.why)
		}
	}
}

// TestConditionOnlyOnToolEvents: Claude evaluates `if` on the five tool
// events alone, and skips a handler with an `if` on any other event.
func TestConditionOnlyOnToolEvents(t *testing.T) {
	payload := map[string]json.RawMessage{
		"tool_name":  json.RawMessage(`"Bash"`),
		"tool_input": json.RawMessage(`{"command":"git push"}`),
		"source":     json.RawMessage(`"startup"`),
	}
	for _, tt := range []struct {
		event string
		want  bool
	}{
		{"PreToolUse", true}, {"PostToolUse", true}, {"PostToolUseFailure", true},
		{"PermissionRequest", true}, {"PermissionDenied", true},
		{"SessionStart", false}, {"UserPromptSubmit", false}, {"Stop", false}, {"Notification", false},
	} {
		s, err := NewSelector(Handler{Event: tt.event, If: "Bash"})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Selects(payload, "/p", "/home/u"); got != tt.want {
			t.Errorf("a handler with an `if` on %s selected = %v, want %v", tt.event, got, tt.want)
		}
		if got := ToolEvent(tt.event); got != tt.want {
			t.Errorf("ToolEvent(%s) = %v, want %v", tt.event, got, tt.want)
		}
	}
	for _, e := range []string{BeforeToolCall, AfterToolCall, "post_tool_use_failure", "permission_request", "permission_denied"} {
		if !ToolEvent(e) || MatchField(e) != "tool_name" {
			t.Errorf("quiver's %s is a tool event matched on tool_name", e)
		}
	}
	for _, e := range []string{SessionStart, UserMessageSend, AgentStop, TurnEnd} {
		if ToolEvent(e) {
			t.Errorf("%s is no tool event", e)
		}
	}
}

// TestConditionClaudeVerdicts checks quiver's reading of rules against
// verdicts computed by Claude Code's own functions (see the file's
// header): the rule language for Bash, Glob/Grep and file tools, exactly.
func TestConditionClaudeVerdicts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "claude-if-verdicts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var refused []string // rules quiver refuses (the handler is invalid) rather than read otherwise
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		var rule, text string
		if len(f) != 5 || json.Unmarshal([]byte(f[1]), &rule) != nil || json.Unmarshal([]byte(f[2]), &text) != nil {
			t.Fatalf("line %d: %q", i+1, line)
		}
		var got bool
		switch f[0] {
		case "bash":
			r := parseBashRule(rule)
			cmd := glob(nil).text(text)
			if r.blanks {
				cmd = collapseBlanks(cmd)
			}
			got = fitsAny(r.alts, cmd)
		case "pattern":
			got = fitsAny(wildcard(rule, false), glob(nil).text(text))
		case "path":
			r, err := parsePathRule(rule)
			if err != nil {
				refused = append(refused, rule)
				continue
			}
			got = r.claude(text, absolute(text, f[3], "/home/u"), f[3], "/p", "/home/u")
		default:
			t.Fatalf("line %d: kind %q", i+1, f[0])
		}
		if want := f[4] == "true"; got != want {
			t.Errorf("line %d: %s rule %q on %q (cwd %q) = %v, Claude says %v", i+1, f[0], rule, text, f[3], got, want)
		}
		n++
	}
	if n < 1000 {
		t.Errorf("only %d verdicts read", n)
	}
	if len(refused) > n/50 {
		t.Errorf("quiver refuses %d of %d rules: %q", len(refused), n, refused)
	}
}
