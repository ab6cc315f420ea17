package term

import (
	"strings"
	"testing"
)

func TestStatusLine(t *testing.T) {
	var b strings.Builder
	s := &Status{W: &b, Getenv: func(k string) string {
		if k == "COLUMNS" {
			return "24"
		}
		return ""
	}}
	s.Clear() // nothing shown: nothing written
	if b.Len() != 0 {
		t.Fatalf("Clear with nothing shown wrote %q", b.String())
	}
	s.Show("fetching acme/a\x1b[2J, acme/b, acme/c (1 of 3 done)")
	s.Show("short")
	s.Clear()
	s.Clear()
	want := "\r\x1b[Kfetching acme/a[2J, ...\r\x1b[Kshort\r\x1b[K"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
}
