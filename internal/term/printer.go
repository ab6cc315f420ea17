package term

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// Colors, as gh uses them: red for what failed or refuses, yellow for
// what needs a look.
const (
	Red    = "\x1b[31m"
	Yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

// attention is the color of a word of a table that needs the reader's
// attention (statuses of hooks, plugins and findings), or "".
func attention(word string) string {
	switch word {
	case "untrusted", "outdated", "warning":
		return Yellow
	case "invalid", "blocked", "failed", "error", "modified", "missing":
		return Red
	}
	return ""
}

// Visible is safefs.Visible: text from plugins and hooks (names,
// descriptions, reasons) never drives the user's terminal. JSON output
// needs no such care: encoding/json escapes it.
var Visible = safefs.Visible

// Printer prints a command's output on Stdout and what it says to the
// person (errors, warnings, progress) on Stderr.
type Printer struct {
	Stdout, Stderr io.Writer
	// StdoutIsTTY and StderrIsTTY say whether each goes to a terminal:
	// only then is it colored.
	StdoutIsTTY, StderrIsTTY bool
	Getenv                   func(string) string
	// NoColor (--no-color) turns color off, as NO_COLOR and TERM=dumb
	// do; Quiet (--quiet) silences warnings and notices.
	NoColor, Quiet bool
	// Redact takes credentials out of what is said on stderr (nil: the
	// text as it is).
	Redact func(string) string
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Colors reports whether output to a terminal (tty) may be colored: not
// with --no-color, NO_COLOR or TERM=dumb.
func (p *Printer) Colors(tty bool) bool {
	return tty && !p.NoColor && p.getenv("NO_COLOR") == "" && p.getenv("TERM") != "dumb"
}

// paint colors s when output to tty may be colored.
func (p *Printer) paint(tty bool, color, s string) string {
	if !p.Colors(tty) {
		return s
	}
	return color + s + reset
}

func (p *Printer) getenv(k string) string {
	if p.Getenv == nil {
		return ""
	}
	return p.Getenv(k)
}

func (p *Printer) redact(s string) string {
	if p.Redact == nil {
		return s
	}
	return p.Redact(s)
}

// Error prints one line: "quiver: ...", whatever the error carried in
// newlines, and never a credential.
func (p *Printer) Error(err error) {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	fmt.Fprintf(p.Stderr, "%s %s\n", p.paint(p.StderrIsTTY, Red, "quiver:"), Visible(p.redact(msg)))
}

// Warnf prints a warning or notice on stderr, unless Quiet; like Error,
// it never prints a credential.
func (p *Printer) Warnf(format string, args ...any) {
	if p.Quiet {
		return
	}
	fmt.Fprintln(p.Stderr, Visible(p.redact(fmt.Sprintf(format, args...))))
}

// Say prints what a domain loop says of one item: an error as Error
// does, else a notice (if any) as Warnf does.
func (p *Printer) Say(msg string, err error) {
	switch {
	case err != nil:
		p.Error(err)
	case msg != "":
		p.Warnf("%s", msg)
	}
}

// Verdict ends a check (audit, verify): it says passed when the check
// passed (err is nil) and returns err.
func (p *Printer) Verdict(passed string, err error) error {
	if err == nil {
		p.Say(passed, nil)
	}
	return err
}

// Text prints a document (a skill's or a recipe's file) as it is, except
// on a terminal: there each control or invisible formatting character
// but newline and tab is shown as its Go escape (safefs.VisibleText),
// since the file is other people's and its bytes must not drive the
// terminal. A pipe gets the bytes unchanged.
func (p *Printer) Text(data []byte) error {
	if !p.StdoutIsTTY {
		_, err := p.Stdout.Write(data)
		return err
	}
	_, err := io.WriteString(p.Stdout, safefs.VisibleText(string(data)))
	return err
}

// JSON prints v as indented JSON with a final newline.
func (p *Printer) JSON(v any) error {
	enc := json.NewEncoder(p.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// JSONLine prints v as compact JSON on one line, for machine-facing
// output such as hook run's result.
func (p *Printer) JSONLine(v any) error {
	enc := json.NewEncoder(p.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Table prints rows under a header as plain aligned columns, the way gh
// and kubectl do (no borders, easy to read and to grep), with the words
// that need attention colored on a terminal.
func (p *Printer) Table(header []string, rows [][]string) error {
	for _, r := range rows {
		for i := range r {
			r[i] = Visible(r[i])
		}
	}
	var colors func(string) string
	if p.Colors(p.StdoutIsTTY) {
		colors = attention
	}
	text := AlignColored(header, rows, p.getenv, colors, reset)
	_, err := io.WriteString(p.Stdout, text)
	return err
}

// List prints items as JSON with asJSON, else as a table under header, a
// row each; none is said on stderr when there are no items ("" says
// nothing).
func List[T any](p *Printer, asJSON bool, items []T, none string, header []string, row func(T) []string) error {
	if asJSON && len(items) == 0 {
		return p.JSON(items) // null or []
	}
	// By address, as a slice's elements are encoded: a MarshalJSON on the
	// pointer counts.
	all := func(yield func(*T) bool) {
		for i := range items {
			if !yield(&items[i]) {
				return
			}
		}
	}
	return ListSeq(p, asJSON, all, none, header, func(t *T) []string { return row(*t) })
}

// ListSeq is List of what seq yields, each value good only until the
// next: as JSON, each is printed as it comes (jsonEach), and nothing
// yielded prints [].
func ListSeq[T any](p *Printer, asJSON bool, seq iter.Seq[*T], none string, header []string, row func(*T) []string) error {
	if asJSON {
		return p.jsonEach(func(yield func(any) bool) {
			for v := range seq {
				if !yield(v) {
					return
				}
			}
		})
	}
	var rows [][]string
	for v := range seq {
		rows = append(rows, row(v))
	}
	if len(rows) == 0 {
		if none != "" {
			p.Warnf("%s", none)
		}
		return nil
	}
	return p.Table(header, rows)
}

// jsonEach prints what seq yields as one JSON array, as JSON prints a
// slice of it: an element at a time, so that a long listing never holds
// the whole document and its indented copy in memory (3.4 MB for 5,000
// hooks), whose fresh pages a one-shot process pays for at first touch.
// Each element is encoded before the next is asked for, so seq may reuse
// one value. Nothing yielded prints []. An element that cannot be
// encoded returns the error; what was not yet written out (the first 32
// KiB, so all of a short list) is dropped, as JSON prints nothing then.
func (p *Printer) jsonEach(seq iter.Seq[any]) error {
	out := bufio.NewWriterSize(p.Stdout, 32<<10)
	var buf bytes.Buffer
	var line []byte
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	n := 0
	for v := range seq {
		if n == 0 {
			out.WriteString("[\n  ")
		} else {
			out.WriteString(",\n  ")
		}
		n++
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		line = appendIndented(line[:0], bytes.TrimSuffix(buf.Bytes(), []byte("\n")), "  ", "  ")
		out.Write(line)
	}
	if n == 0 {
		out.WriteString("[]\n")
	} else {
		out.WriteString("\n]\n")
	}
	return out.Flush()
}

// appendIndented appends compact JSON (as json.Encoder writes it) laid
// out as json.Indent would lay it out with prefix and indent: a new line
// for each member and element, empty objects and arrays kept as {} and
// []. json.Indent runs its whole scanner for this, a function call per
// byte, which was 6% of a 1,000-plugin `hook list --json`; compact
// input needs only to know whether it is inside a string.
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	opened := false // the last byte opened an object or array
	newLine := func(dst []byte) []byte {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
		return dst
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if opened {
			opened = false
			if c == '}' || c == ']' {
				depth--
				dst = append(dst, c)
				continue
			}
			dst = newLine(dst)
		}
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			depth++
			opened = true
		case ',':
			dst = newLine(append(dst, c))
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			depth--
			dst = append(newLine(dst), c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// Report prints a report as JSON with asJSON, else the lines the domain
// made of it for people.
func (p *Printer) Report(asJSON bool, r interface{ Lines() []string }) error {
	if asJSON {
		return p.JSON(r)
	}
	p.Lines(r.Lines())
	return nil
}

// Lines prints lines the domain made for people, as they are.
func (p *Printer) Lines(lines []string) {
	for _, line := range lines {
		fmt.Fprintln(p.Stdout, line)
	}
}
