package format

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// bashCases is how Claude Code judges a Bash `if` (notes §C): every simple
// command of the line counts, with its leading assignments and
// redirections dropped and its quotes removed; where quiver cannot follow
// the line, the guard runs.
var bashCases = []struct {
	rule, command string
	want          bool
}{
	// Every part of a line is guarded.
	{"git push *", "git push", true},
	{"git push *", "git push origin main", true},
	{"git push *", "ls && git push", true},
	{"git push *", "FOO=1 git push", true},
	{"git push *", "FOO=1 BAR='a b' git push origin", true},
	{"git push *", "true; git push", true},
	{"git push *", "echo x | git push", true},
	{"git push *", "echo x |& git push", true},
	{"git push *", "a || git push", true},
	{"git push *", "git push &", true},
	{"git push *", "git push & ls", true},
	{"git push *", "ls\ngit push", true},
	{"git push *", "(git push)", true},
	{"git push *", "(cd x && (git push))", true},
	{"git push *", "{ git push; }", true},
	{"git push *", "if true; then git push; fi", true},
	{"git push *", "if git push; then :; fi", true},
	{"git push *", "if false; then :; elif false; then :; else git push; fi", true},
	{"git push *", "while true; do git push; done", true},
	{"git push *", "until false; do git push; done", true},
	{"git push *", "for r in a b; do git push $r; done", true},
	{"git push *", "case x in x) git push;; esac", true},
	{"git push *", "! git push", true},
	{"git push *", "time git push", true},
	{"git push *", "cd x && FOO=1 git push --force", true},
	{"git push *", "xargs git push", true},
	{"git push *", "echo x | xargs -n 1 git push", true},
	// Every wrapper that runs another command is looked through, as
	// Claude's checker does (time, nohup, timeout, nice, stdbuf, env,
	// command) and more: matching more only runs the guard more.
	{"git push *", "timeout 5 git push", true},
	{"git push *", "timeout --signal=KILL 5 git push origin", true},
	{"git push *", "nohup git push", true},
	{"git push *", "nice -n 5 git push", true},
	{"git push *", "stdbuf -o0 git push", true},
	{"git push *", "env FOO=1 git push", true},
	{"git push *", "command git push", true},
	{"git push *", "sudo timeout 5 git push", true},
	{"git push:*", "sudo -u deploy git push", true},
	{"git push *", "nohup ls", false},
	// Redirections, quotes and white space are not the command.
	{"git push *", "git push 2>/dev/null", true},
	{"git push *", ">out git push", true},
	{"git push *", "git push >out 2>&1 <in", true},
	{"git push *", `"git" "push" origin`, true},
	{"git push *", `'git' pu"sh"`, true},
	{"git push *", `g\it push`, true},
	{"git push *", "git   push", true},
	{"git push *", "git \\\n  push", true},
	{"git push *", "git push # see you", true},
	// What the shell fills in may be anything.
	{"git push *", "$GIT push", true},
	{"git push *", "git $CMD", true},
	{"git push *", "git $EMPTY push", true},
	{"git push *", `git "$C"`, true},
	{"git push *", "gi? push", true},
	{"git push *", "git pus[h]", true},
	{"git push *", "git {push,pull}", true},
	// ... and nothing else matches.
	{"git push *", `bash -c "git push"`, false}, // as in Claude: the inner line is an argument
	{"git push *", `echo "git push"`, false},
	{"git push *", "echo git push", false},
	{"git push *", "git pull && git status", false},
	{"git push *", "git pushx", false},
	{"git push *", "FOO=1 ls; echo done", false},
	{"git push *", "ls *.go | wc -l", false},
	{"git push *", "echo $HOME $1 \"$@\"", false},
	{"git push *", "[[ -f x ]] && ls", false},
	{"git push *", "export A=1 B && ls > git", false},
	{"git push *", "xargs -0 rm", false},
	{"git push *", "", false},
	{"git push *", "# git push", false},
	// What quiver cannot follow matches: the guard runs.
	{"git push *", `echo "unterminated`, true},
	{"git push *", "cat <<EOF\ngit push\nEOF", true},
	{"git push *", "cat <<-EOF\n\tls\n\tEOF", true},
	{"git push *", "cat <<< ls", true},
	{"git push *", "echo $(git push)", true},
	{"git push *", "echo $(ls)", true},
	{"git push *", "echo ${X}", true},
	{"git push *", "echo ${X:-ls}", true},
	{"git push *", "echo `git push`", true},
	{"git push *", `echo "a $(ls) b"`, true},
	{"git push *", "X=$(ls) true", true},
	{"git push *", "ls > $(mktemp)", true},
	{"git push *", "diff <(ls) <(ls -a)", true},
	{"git push *", "echo $((1 + 2))", true},
	{"git push *", "(( i++ ))", true},
	{"git push *", "let i=1", true},
	{"git push *", "for ((i=0; i<3; i++)); do ls; done", true},
	{"git push *", `echo $'\x67it push'`, true},
	{"git push *", `echo $"hello"`, true},
	{"git push *", "f() { ls; }; f", true},
	{"git push *", "a=(1 2); ls", true},
	{"git push *", "FOO=1 { ls; }", true},
	{"git push *", "FOO=1 if true", true},
	{"git push *", "if true; then", true},
	{"git push *", "ls )", true},
	{"git push *", "ls &&", true},
	{"git push *", "ls # a note\\\ngit push", true}, // bash ends the comment at the newline; the parser would not

	// x:* is x alone or x and more words.
	{"git push:*", "git push", true},
	{"git push:*", "git push origin", true},
	{"git push:*", "ls && git push origin", true},
	{"git push:*", "xargs git push", true},
	{"git push:*", "git pushx", false},
	{"git push:*", "gitpush", false},
	{"git commit:*", "git commit -m x", true},
	{"git commit:*", "cd repo && git commit -m 'a b'", true},
	{"git commit:*", "git committed", false},

	// A rule spans the whole command.
	{"push", "git push", false},
	{"push", "push", true},
	{"push", "ls; push", true},
	{"git * main", "git push origin main", true},
	{"git * main", "ls && git push origin main", true},
	{"git * main", "git push origin dev", false},
	{"rm -rf /", "rm -rf /", true},
	{"rm -rf /", `rm  "-rf"   /`, true},
	{"rm -rf /", "rm -rf /tmp", false},
	{"* --force", "git push --force", true},
	{"* --force", "git push --force-with-lease", false},
	{"git  push   *", "git push x", true}, // runs of white space in a rule are one space
	{"git push *", "git  push\t x", true}, // and in the command
	{"echo a b", `echo "a   b"`, true},    // even inside quotes: Claude collapses the joined text
	{"echo a b", "echo 'a\tb'", true},
	{"echo a b", "echo 'a\nb'", false}, // a newline is no blank
	{`echo \*`, `echo '*'`, true},      // an escaped star is a star
	{`echo \*`, "echo x", false},
	{`echo \\*`, `echo '*'`, true}, // Bash(echo \\*): "\\" is "\" first, which escapes the star
	{`echo \(x\)`, "echo '(x)'", true},
	{"*", "anything at all", true},
	{"", "anything at all", true}, // Bash(): Claude reads it as Bash
	{" * ", "anything at all", true},
	{" * ", "", false}, // a specifier, not the tool alone: an empty line has no command to fit it

	// The bare command fits a trailing " *" only when that is the
	// rule's one star.
	{"git * *", "git x", false},
	{"git * *", "git x y", true},
	{"* main *", "git main", false},
	// "/**/" is one slash, or any folders between two.
	{"cat a/**/b", "cat a/b", true},
	{"cat a/**/b", "cat a/x/y/b", true},
	{"cat a/**/b", "cat a/xb", false},
	{"cat a/**/**/b *", "cat a/b", false}, // five stars: no bare form

	// x:* is literal: no wildcards, no trimming, no collapsing.
	{"git  push:*", "git push", false},
	{"git  push:*", "'git  push' x", true},
	{" git push:*", "git push", false},
	{"git *:*", "git push", false},
	{"git *:*", "git '*' push", true},
	{"*:*", "ls", false},
	{"git push:*", "git push\t-f", true}, // the shell splits at the tab; words join with spaces
	{"git push:*", "git push'\t-f'", false},
	{"git push:*", "git push '\t-f'", true},
}

func matchesBash(t testing.TB, rule, command string) bool {
	t.Helper()
	c, err := ParseCondition("Bash(" + rule + ")")
	if err != nil {
		t.Fatalf("Bash(%s): %v", rule, err)
	}
	in, _ := json.Marshal(map[string]string{"command": command})
	return c.Match("Bash", in, "/p", "/p", "/home/u")
}

func TestConditionBash(t *testing.T) {
	for _, tt := range bashCases {
		if got := matchesBash(t, tt.rule, tt.command); got != tt.want {
			t.Errorf("Bash(%s) on %q = %v, want %v", tt.rule, tt.command, got, tt.want)
		}
	}
	// Too long or deep to parse on every tool call: the guard runs.
	deep := strings.Repeat("( ", 300) + "ls" + strings.Repeat(" )", 300)
	long := "echo " + strings.Repeat("x", 20<<10)
	for _, line := range []string{deep, long} {
		if !matchesBash(t, "git push *", line) {
			t.Errorf("a line of %d bytes skipped the guard", len(line))
		}
	}
	if matchesBash(t, "git push *", "echo "+strings.Repeat("x", 10<<10)) {
		t.Error("a long line that cannot run git push matched")
	}
	c, err := ParseCondition("Bash(git push *)")
	if err != nil {
		t.Fatal(err)
	}
	if c.Match("Edit", json.RawMessage(`{"command":"git push"}`), "/p", "/p", "/home/u") {
		t.Error("a Bash rule matched another tool")
	}
	for _, in := range []string{`{}`, `{"command":7}`, `{"command":null}`, `not json`} {
		if !c.Match("Bash", json.RawMessage(in), "/p", "/p", "/home/u") {
			t.Errorf("Bash input %s without a readable command skipped the guard", in)
		}
	}
}

// FuzzConditionCompound checks that a rule which matches a command still
// matches it as a part of a longer line. A fragment that bash cannot read
// alone is not a command, and may read differently after a prefix ("; ls"
// fails alone, "FOO=1 ; ls" does not), so such fragments are skipped.
func FuzzConditionCompound(f *testing.F) {
	for _, tt := range bashCases {
		f.Add(tt.rule, tt.command)
	}
	f.Fuzz(func(t *testing.T, rule, command string) {
		// Commands and rules arrive in JSON: valid UTF-8.
		if !utf8.ValidString(rule) || !utf8.ValidString(command) {
			return
		}
		if _, err := ParseCondition("Bash(" + rule + ")"); err != nil {
			return
		}
		if !matchesBash(t, rule, command) || !parses(command) {
			return
		}
		for _, line := range []string{"true && " + command, "FOO=1 " + command, "echo x | " + command} {
			if !matchesBash(t, rule, line) {
				t.Errorf("Bash(%s) matches %q but not %q", rule, command, line)
			}
		}
	})
}

// BenchmarkConditionBash is the cost a Bash condition adds to one event.
func BenchmarkConditionBash(b *testing.B) {
	c, err := ParseCondition("Bash(git push *)")
	if err != nil {
		b.Fatal(err)
	}
	in := json.RawMessage(`{"command":"cd /src/app && FOO=1 go test ./... 2>&1 | tail -n 20; git status --short"}`)
	for b.Loop() {
		if c.Match("Bash", in, "/p", "/p", "/home/u") {
			b.Fatal("matched")
		}
	}
}

func parses(line string) bool {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	return err == nil
}
