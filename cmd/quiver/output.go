package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

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
