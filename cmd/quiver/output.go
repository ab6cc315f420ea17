package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// visible makes control characters (terminal escapes, newlines, NUL) and
// invisible formatting ones (bidi overrides, zero-width spaces) visible as
// Go escapes, so text from plugins and hooks (names,
// descriptions, reasons) can never drive the user's terminal. JSON output
// needs no such care: encoding/json escapes them.
func visible(s string) string {
	if strings.IndexFunc(s, safefs.Deceptive) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
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
func writeTable(w io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Settings: tw.Settings{Separators: tw.SeparatorsNone, Lines: tw.LinesNone},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
	)
	t.Header(header)
	for _, r := range rows {
		for i := range r {
			r[i] = visible(r[i])
		}
		if err := t.Append(r); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	// Cells are padded to the column width; trailing blanks only get in
	// the way of diff and grep.
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if trimmed == "" && line == "" {
			continue
		}
		if _, err := io.WriteString(w, trimmed+"\n"); err != nil {
			return err
		}
	}
	return nil
}
