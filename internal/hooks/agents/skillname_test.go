package agents

import "testing"

func TestWithName(t *testing.T) {
	for _, tt := range []struct {
		in, name, want string
		ok             bool
	}{
		{"---\nname: access\ndescription: x\n---\nbody\n", "acme-two-access", "---\nname: acme-two-access\ndescription: x\n---\nbody\n", true},
		{"---\r\nname: 'access'\r\n---\r\n", "b-access", "---\r\nname: b-access\r\n---\r\n", true},
		{"---\nname: access\n---\n", "access", "", false},
		{"---\ndescription: no name\n---\nname: not frontmatter\n", "x", "", false},
		{"no frontmatter\nname: x\n", "y", "", false},
		{"---\nmeta:\n  name: nested\nname: top\n---\n", "n", "---\nmeta:\n  name: nested\nname: n\n---\n", true},
		{"---\nname: a\n---\n", "odd name", "---\nname: \"odd name\"\n---\n", true},
	} {
		got, ok := withName([]byte(tt.in), tt.name)
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("withName(%q, %q) = %q, %v; want %q, %v", tt.in, tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
