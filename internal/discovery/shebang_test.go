package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShebangRunsNoWorkingDirectoryFile: a project hook's #! line may
// name an absolute interpreter or env with a program from PATH, followed
// by plain flags only; every argument that could run or load a file of
// the working directory makes the hook invalid (fifth review, B1).
func TestShebangRunsNoWorkingDirectoryFile(t *testing.T) {
	for line, want := range map[string]string{
		"#!/bin/sh":                              "",
		"#!/bin/bash -eu":                        "",
		"#!/usr/bin/env python3":                 "",
		"#!/usr/bin/env -S python3 -u -I":        "",
		"#!/usr/bin/env -S node --no-warnings":   "",
		"#!/usr/bin/perl -w":                     "",
		"no shebang at all":                      "",
		"#!bin/sh":                               "names the interpreter bin/sh by a relative path",
		"#!/usr/bin/env ./tool":                  "names the interpreter ./tool by a relative path",
		"#!/usr/bin/env -S ./bin/sh -e":          "names the interpreter ./bin/sh by a relative path",
		"#!/bin/sh ./run":                        `passes "./run"`,
		"#!/usr/bin/env -S bash ./x":             `passes "./x"`,
		"#!/usr/bin/env -S bash x":               `passes "x"`,
		"#!/usr/bin/env -S -u X ./run":           `gives env the option or assignment "-u"`,
		"#!/usr/bin/env -Sbin/sh":                `gives env the option or assignment "-Sbin/sh"`,
		"#!/usr/bin/env -C sub sh":               `gives env the option or assignment "-C"`,
		"#!/usr/bin/env -S PYTHONPATH=. python3": `gives env the option or assignment "PYTHONPATH=."`,
		"#!/usr/bin/env -S python3 -m runmod":    `passes "runmod"`,
		"#!/usr/bin/python3 -mrunmod":            `passes "-mrunmod"`,
		"#!/usr/bin/perl -Ilib":                  `passes "-Ilib"`,
		"#!/usr/bin/ruby -rx":                    `passes "-rx"`,
		"#!/usr/bin/node --require=./x":          `passes "--require=./x"`,
		"#!/usr/bin/env -S bash ${X}":            `passes "${X}"`,
		"#!/usr/bin/env":                         "runs env without a program",
		"#!/bin/sh " + strings.Repeat("-e ", 90): "longer than 255 bytes",
	} {
		p := filepath.Join(t.TempDir(), "hook")
		if err := os.WriteFile(p, []byte(line+"\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		got := shebangProblem(p)
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%q: got %q, want %q", line, got, want)
		}
	}
}
