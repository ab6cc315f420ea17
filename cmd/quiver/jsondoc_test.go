package main

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
	"github.com/quiver-cli/quiver/internal/plugins/policy"
)

// jsonShapes names the Go value each --json prints, by the section of
// docs/json.md that documents it. A list prints an array of the type.
var jsonShapes = map[string]reflect.Type{
	"quiver version --json":          reflect.TypeFor[build](),
	"quiver plugin list --json":      reflect.TypeFor[[]discovery.PluginInfo](),
	"quiver plugin add --json":       reflect.TypeFor[[]discovery.PluginInfo](),
	"quiver plugin show --json":      reflect.TypeFor[discovery.PluginDetail](),
	"quiver plugin verify --json":    reflect.TypeFor[[]plugins.VerifyResult](),
	"quiver plugin outdated --json":  reflect.TypeFor[[]plugins.Outdated](),
	"quiver plugin update --json":    reflect.TypeFor[[]plugins.UpdateLine](),
	"quiver plugin config --json":    reflect.TypeFor[[]plugins.ConfigRow](),
	"quiver plugin validate --json":  reflect.TypeFor[format.Report](),
	"quiver doctor --json":           reflect.TypeFor[format.Report](),
	"quiver hook list --json":        reflect.TypeFor[[]discovery.HookEntry](),
	"quiver hook test --json":        reflect.TypeFor[hooks.TestReport](),
	"quiver skill list --json":       reflect.TypeFor[[]discovery.DocEntry](),
	"quiver skill show --json":       reflect.TypeFor[discovery.DocShow](),
	"quiver recipe list --json":      reflect.TypeFor[[]discovery.DocEntry](),
	"quiver recipe show --json":      reflect.TypeFor[discovery.DocShow](),
	"quiver marketplace add --json":  reflect.TypeFor[marketplace.Listing](),
	"quiver marketplace list --json": reflect.TypeFor[[]marketplace.Listing](),
	"quiver search --json":           reflect.TypeFor[[]marketplace.Found](),
	"quiver trust --json":            reflect.TypeFor[discovery.TrustReport](),
	"quiver policy show --json":      reflect.TypeFor[policy.Report](),
	"quiver audit --json":            reflect.TypeFor[audit.Report](),
	"quiver agent list --json":       reflect.TypeFor[[]agents.Row](),
}

// TestJSONShapesDocumented holds docs/json.md to the code both ways:
// every key a --json can print has a row (with the version it came in),
// and every row names a key that is still printed.
func TestJSONShapesDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := docSections(string(data))
	for section, typ := range jsonShapes {
		rows, ok := doc[section]
		if !ok {
			t.Errorf("docs/json.md has no section %q", section)
			continue
		}
		want := jsonKeys(typ)
		for _, k := range want {
			if _, ok := rows[k]; !ok {
				t.Errorf("docs/json.md, %s: key %q is printed but not documented", section, k)
			}
		}
		for k := range rows {
			if !slices.Contains(want, k) {
				t.Errorf("docs/json.md, %s: key %q is documented but no longer printed", section, k)
			}
		}
	}
	for section := range doc {
		if _, ok := jsonShapes[section]; !ok {
			t.Errorf("docs/json.md documents %q, which jsonShapes does not know", section)
		}
	}
}

var (
	sectionName = regexp.MustCompile("`(quiver [^`]+ --json[^`]*)`")
	rowLine     = regexp.MustCompile("^\\| `([^`]+)` \\| [^|]+ \\| (v[0-9]+) \\|")
)

// docSections reads docs/json.md's sections (a heading may name several
// commands that print one shape) and, in each, the keys of its table
// rows with the version each names.
func docSections(text string) map[string]map[string]string {
	out := map[string]map[string]string{}
	var cur map[string]string
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			cur = nil
			if names := sectionName.FindAllStringSubmatch(line, -1); names != nil {
				cur = map[string]string{}
				for _, m := range names {
					out[m[1]] = cur
				}
			}
			continue
		}
		if m := rowLine.FindStringSubmatch(line); m != nil && cur != nil {
			cur[m[1]] = m[2]
		}
	}
	return out
}

// jsonKeys lists the key paths encoding/json can print for t: nested
// objects as a.b, array elements as a[].b, a map's values as a.*.b; a
// top-level array's elements are the object itself.
func jsonKeys(t reflect.Type) []string {
	var out []string
	var walk func(t reflect.Type, prefix string, seen []reflect.Type)
	walk = func(t reflect.Type, prefix string, seen []reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
			return
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			if t.Elem().Kind() == reflect.Uint8 {
				return
			}
			p := prefix
			if p != "" {
				p += "[]"
			}
			walk(t.Elem(), p, seen)
		case reflect.Map:
			walk(t.Elem(), prefix+".*", seen)
		case reflect.Struct:
			if slices.Contains(seen, t) {
				return
			}
			seen = append(seen, t)
			for f := range fieldsOf(t) {
				name := f.Name
				if tag, ok := f.Tag.Lookup("json"); ok {
					name, _, _ = strings.Cut(tag, ",")
				}
				key := name
				if prefix != "" {
					key = strings.TrimPrefix(prefix, ".") + "." + name
				}
				key = strings.TrimPrefix(key, ".")
				out = append(out, key)
				walk(f.Type, key, seen)
			}
		}
	}
	walk(t, "", nil)
	return out
}

// fieldsOf yields the fields encoding/json prints of struct t, with an
// untagged embedded struct's fields in its place.
func fieldsOf(t reflect.Type) func(func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			if f.Anonymous && tag == "" {
				et := f.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					for g := range fieldsOf(et) {
						if !yield(g) {
							return
						}
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

// TestJSONKeysOfAType is jsonKeys on a type whose shape is known, so the
// documentation test above cannot pass by listing nothing.
func TestJSONKeysOfAType(t *testing.T) {
	type inner struct {
		B string `json:"b"`
	}
	type embedded struct {
		E int `json:"e"`
	}
	type outer struct {
		embedded
		A    string           `json:"a,omitempty"`
		L    []inner          `json:"l"`
		M    map[string]inner `json:"m"`
		Skip string           `json:"-"`
		P    *inner           `json:"p"`
	}
	got := jsonKeys(reflect.TypeFor[[]outer]())
	want := []string{"e", "a", "l", "l[].b", "m", "m.*.b", "p", "p.b"}
	if !slices.Equal(got, want) {
		t.Fatalf("jsonKeys = %q, want %q", got, want)
	}
}
