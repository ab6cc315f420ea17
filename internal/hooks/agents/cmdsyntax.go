package agents

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
)

// A Claude Code command's body has constructs of its own: shell lines
// (!`git status`, run when the command is invoked, their output in the
// prompt), file references (@src/main.go, the file's content in the
// prompt) and arguments ($ARGUMENTS, $ARGUMENTS[0], $1). Each agent that
// takes commands spells them its own way, or not at all (docs/agents.md,
// "Commands in each agent's syntax"); a command reaches it in its
// spelling, and what has none is named in agent list's missed.

// commandSyntax rewrites a command's body (its frontmatter apart) into
// the agent's spelling; notes say what of it has no spelling there.
type commandSyntax func(body string) (out string, notes []string)

var (
	shellLine = lazy.Regexp{Expr: "!`([^`\\n]+)`"}
	// fileRef is @ then a path (it holds a / or a dot), at the start or
	// after a blank or an opening bracket: an e-mail address or a
	// handle (@alice) is none.
	fileRef       = lazy.Regexp{Expr: `(^|[\s(\[])@((?:[A-Za-z0-9_~${}.-]+/)*[A-Za-z0-9_~${}-]*[/.][A-Za-z0-9_~${}./-]*[A-Za-z0-9_~}/])`}
	indexedArg    = lazy.Regexp{Expr: `\$ARGUMENTS\[(\d+)\]`}
	positionalArg = lazy.Regexp{Expr: `\$(?:[1-9]\b|ARGUMENTS\[\d+\])`}
)

// geminiOwn breaks up Gemini CLI's shell, file and argument syntax in s.
func geminiOwn(s string) string {
	for _, r := range [...][2]string{{"!{", "! {"}, {"@{", "@ {"}, {"{{", "{ {"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// geminiSyntax is Gemini CLI's: !{cmd}, @{path}; its {{args}} is the whole
// argument line (geminiCommand writes it), so $1 and $ARGUMENTS[N] have
// no form there.
func geminiSyntax(body string) (string, []string) {
	var notes []string
	// Gemini's own syntax already in the text is prose to Claude, which
	// runs none of it: a space keeps Gemini from running it either.
	if kept := geminiOwn(body); kept != body {
		body = kept
		notes = append(notes, "its text holds Gemini CLI's own syntax (!{, @{ or {{args}}), which Claude reads as text: kept as text, with a space, not run")
	}
	body = shellLine.Get().ReplaceAllStringFunc(body, func(m string) string {
		cmd := m[2 : len(m)-1]
		if !balanced(cmd) {
			notes = append(notes, fmt.Sprintf("its shell line %s has braces Gemini CLI's !{...} cannot hold: kept as text, not run", strconv.Quote(m)))
			return m
		}
		return "!{" + cmd + "}"
	})
	body = fileRef.Get().ReplaceAllStringFunc(body, func(m string) string {
		lead, path := splitRef(m)
		return lead + "@{" + path + "}"
	})
	if positionalArg.Get().MatchString(body) {
		notes = append(notes, "its positional arguments ($1, $ARGUMENTS[0]) have no Gemini CLI form: the whole argument line is given first, as {{args}}")
	}
	return body, notes
}

// cursorSyntax is Cursor's: a command is plain text, what follows it on
// the line appended; it runs no shell line and has no placeholder.
func cursorSyntax(body string) (string, []string) {
	var notes []string
	if lines := shellLine.Get().FindAllString(body, -1); len(lines) > 0 {
		notes = append(notes, fmt.Sprintf("its shell lines (%s) do not run in Cursor: kept as text", strings.Join(quoted(lines), ", ")))
	}
	if positionalArg.Get().MatchString(body) {
		notes = append(notes, "its positional arguments ($1, $ARGUMENTS[0]) have no Cursor form: what follows the command is appended to it whole")
	}
	body = indexedArg.Get().ReplaceAllString(body, "the text after the command")
	body = strings.ReplaceAll(body, "$ARGUMENTS", "the text after the command")
	return body, notes
}

// opencodeSyntax is OpenCode's, Claude's but for the indexed argument:
// $ARGUMENTS[0] is $1 there.
func opencodeSyntax(body string) (string, []string) {
	body = indexedArg.Get().ReplaceAllStringFunc(body, func(m string) string {
		n, err := strconv.Atoi(indexedArg.Get().FindStringSubmatch(m)[1])
		if err != nil || n > 8 {
			return m
		}
		return "$" + strconv.Itoa(n+1)
	})
	return body, nil
}

// splitRef parts a fileRef match into what led it and the path.
func splitRef(m string) (lead, path string) {
	i := strings.IndexByte(m, '@')
	return m[:i], m[i+1:]
}

// balanced reports text whose braces pair up, as Gemini's !{...} needs.
func balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// withSyntax is text (a command file: frontmatter, then body) with its
// body in the agent's spelling.
func withSyntax(text string, syntax commandSyntax) (string, []string) {
	head, body := splitFrontmatter(text)
	body, notes := syntax(body)
	return head + body, notes
}

// splitFrontmatter parts a Markdown file into its frontmatter block
// (both --- lines included; "" for none) and the rest.
func splitFrontmatter(text string) (head, body string) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || strings.TrimRight(strings.TrimPrefix(lines[0], "\ufeff"), "\r\n") != "---" {
		return "", text
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == "---" {
			return strings.Join(lines[:i+1], ""), strings.Join(lines[i+1:], "")
		}
	}
	return "", text
}
