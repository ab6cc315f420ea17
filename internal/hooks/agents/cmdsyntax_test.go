package agents

import (
	"strings"
	"testing"
)

func TestCommandSyntax(t *testing.T) {
	body := "Status: !`git status`\nRead @notes.txt and @src/main.go, mail a@b.com or @alice.\nFirst $1, then $ARGUMENTS[1]; all: $ARGUMENTS.\n"
	got, notes := geminiSyntax(body)
	want := "Status: !{git status}\nRead @{notes.txt} and @{src/main.go}, mail a@b.com or @alice.\nFirst $1, then $ARGUMENTS[1]; all: $ARGUMENTS.\n"
	if got != want {
		t.Errorf("gemini:\n%q\nwant\n%q", got, want)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "positional arguments") {
		t.Errorf("gemini notes %q", notes)
	}
	if _, notes := geminiSyntax("!`awk '{print $1'`"); len(notes) == 0 || !strings.Contains(notes[0], "kept as text, not run") {
		t.Errorf("an unbalanced shell line is not named: %q", notes)
	}

	// Gemini's own syntax in the text is prose to Claude: it must not
	// run in Gemini either (the attack on issue 44, F3).
	got, notes = geminiSyntax("Looks like !{touch /tmp/x} or @{/etc/passwd} or {{args}}; runs !`date`.")
	if strings.Contains(got, "!{touch") || strings.Contains(got, "@{/etc") || strings.Contains(got, "{{args}}") || !strings.Contains(got, "!{date}") {
		t.Errorf("gemini kept its own syntax live: %q", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "not run") {
		t.Errorf("gemini notes for its own syntax %q", notes)
	}

	got, notes = cursorSyntax(body)
	if !strings.Contains(got, "all: the text after the command.") || !strings.Contains(got, "then the text after the command;") {
		t.Errorf("cursor: %q", got)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "\"!`git status`\"") || !strings.Contains(notes[0], "do not run in Cursor") {
		t.Errorf("cursor notes %q", notes)
	}

	got, notes = opencodeSyntax(body)
	if !strings.Contains(got, "then $2;") || !strings.Contains(got, "!`git status`") || len(notes) != 0 {
		t.Errorf("opencode: %q %q", got, notes)
	}

	head, rest := splitFrontmatter("---\ndescription: x\n---\nbody @a.txt\n")
	if head != "---\ndescription: x\n---\n" || rest != "body @a.txt\n" {
		t.Errorf("splitFrontmatter = %q, %q", head, rest)
	}
	if out, _ := withSyntax("---\ndescription: see @x.md\n---\n@x.md\n", geminiSyntax); out != "---\ndescription: see @x.md\n---\n@{x.md}\n" {
		t.Errorf("withSyntax rewrote the frontmatter: %q", out)
	}
}
