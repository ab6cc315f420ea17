package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/table"
)

// visible is safefs.Visible: text from plugins and hooks (names,
// descriptions, reasons) never drives the user's terminal. JSON output
// needs no such care: encoding/json escapes it.
var visible = safefs.Visible

// Colors, as gh uses them: red for what failed or refuses, yellow for
// what needs a look.
const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

// colors reports whether output to a terminal (tty) may be colored: not
// with --no-color, NO_COLOR or TERM=dumb.
func (a *App) colors(tty bool) bool {
	return tty && !a.noColor && a.Getenv("NO_COLOR") == "" && a.Getenv("TERM") != "dumb"
}

// paint colors s when output to tty may be colored.
func (a *App) paint(tty bool, color, s string) string {
	if !a.colors(tty) {
		return s
	}
	return color + s + reset
}

// attention are the words of a table that need the reader's attention
// (statuses of hooks, plugins and findings), and their color.
var attention = map[string]string{
	"untrusted": yellow, "outdated": yellow, "warning": yellow,
	"invalid": red, "blocked": red, "failed": red, "error": red, "modified": red, "missing": red,
}

// writeJSON prints v as indented JSON with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONLine prints v as compact JSON on one line, for machine-facing
// output such as hook run's result.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeTable prints rows under a header as plain aligned columns, the way
// gh and kubectl do: no borders, easy to read and to grep.
func (a *App) writeTable(header []string, rows [][]string) error {
	for _, r := range rows {
		for i := range r {
			r[i] = visible(r[i])
		}
	}
	text := table.Align(header, rows, a.Getenv)
	if a.colors(a.StdoutIsTTY) {
		text = table.Highlight(text, attention, reset)
	}
	_, err := io.WriteString(a.Stdout, text)
	return err
}

// printList prints items as JSON with asJSON, else as a table under
// header, a row each; none is said on stderr when there are no items
// ("" says nothing).
func printList[T any](a *App, asJSON bool, items []T, none string, header []string, row func(T) []string) error {
	if asJSON {
		return writeJSON(a.Stdout, items)
	}
	if len(items) == 0 {
		if none != "" {
			a.warnf("%s", none)
		}
		return nil
	}
	rows := make([][]string, 0, len(items))
	for _, item := range items {
		rows = append(rows, row(item))
	}
	return a.writeTable(header, rows)
}

// printReport prints a report as JSON with asJSON, else the lines the
// domain made of it for people.
func (a *App) printReport(asJSON bool, r interface{ Lines() []string }) error {
	if asJSON {
		return writeJSON(a.Stdout, r)
	}
	a.printLines(r.Lines())
	return nil
}

// printLines prints lines the domain made for people, as they are.
func (a *App) printLines(lines []string) {
	for _, line := range lines {
		fmt.Fprintln(a.Stdout, line)
	}
}

// report prints what a domain loop says of each item: an error as
// printError does, else a notice (if any) as warnf does.
func (a *App) report(msg string, err error) {
	switch {
	case err != nil:
		a.printError(err)
	case msg != "":
		a.warnf("%s", msg)
	}
}
