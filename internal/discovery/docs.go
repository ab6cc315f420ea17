package discovery

import (
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Kind tells skills and recipes apart.
type Kind string

// The two kinds of Markdown items.
const (
	Skill  Kind = "skill"
	Recipe Kind = "recipe"
)

// Doc is one skill or recipe as discovered, in any status.
type Doc struct {
	Kind        Kind
	Name        string
	Description string
	// Path is the SKILL.md or the recipe file.
	Path     string
	Location plugins.Location
	Plugin   plugins.Name
	Status   Status
	Reason   string
	// Warnings are problems that do not stop the item from working
	// (SPEC §3): a skill without description, or whose frontmatter name
	// differs from its folder.
	Warnings []string
	// Frontmatter is the parsed YAML (nil when the file has none).
	Frontmatter map[string]any
	// Body is the text after the frontmatter.
	Body string
	// Escape is set for an item whose symlink leads out of its folder:
	// it is invalid, and its file is never read (show refuses it).
	Escape string
}

// Skills discovers every skill, in precedence order, any status.
func Skills(o Options) ([]Doc, error) { return docs(o, Skill) }

// Recipes discovers every recipe, in precedence order, any status.
func Recipes(o Options) ([]Doc, error) { return docs(o, Recipe) }

func docs(o Options, kind Kind) ([]Doc, error) {
	kinds := plugins.RecipeKind
	if kind == Skill {
		kinds = plugins.SkillKind
	}
	srcs, err := sources(o.Layout, kinds, true)
	if err != nil {
		return nil, err
	}
	cache := newCaches(string(kind)+"-"+docCacheFile, docSummaryCodec)
	defer cache.save()
	itemsOf := func(s source) []plugins.Item {
		if kind == Skill {
			return s.contents.Skills
		}
		return s.contents.Recipes
	}
	// Sized once: a Doc is some 200 bytes, and growing the slice by
	// doubling copies and discards as much again. None stays nil.
	n := 0
	for _, s := range srcs {
		n += len(itemsOf(s))
	}
	var out []Doc
	if n > 0 {
		out = make([]Doc, 0, n)
	}
	for _, s := range srcs {
		items := itemsOf(s)
		rootEscape := linkedPluginEscape(s, o.Layout.ProjectDir)
		for _, it := range items {
			if rootEscape != "" {
				it.Escape = rootEscape
			}
			var d Doc
			if it.Escape != "" {
				d = Doc{Kind: kind, Path: it.Path, Status: Invalid, Escape: it.Escape,
					Reason: it.Escape + "; a " + string(kind) + " must be a file inside its folder"}
			} else {
				d = summarize(cache.of(o.Layout, s.location), s.contents, kind, it)
			}
			d.Name, d.Location, d.Plugin = ItemName(s.plugin, it.Name), s.location, s.plugin
			if st, why := s.status(); st != Active && d.Escape == "" {
				d.Status, d.Reason = st, why
			}
			out = append(out, d)
		}
	}
	resolveDocs(out)
	return out, nil
}

// linkedPluginEscape says why a project plugin folder that is a symlink
// leads out of the project, "" otherwise. Inside its folder every item is
// confined (plugins.Confine), but a folder that is itself a link to
// ~/.claude would make all of that folder "inside": the repository chose
// the link, so its target must lie in the project.
func linkedPluginEscape(s source, projectDir string) string {
	if !s.project || s.plugin.IsZero() {
		return ""
	}
	fi, err := os.Lstat(s.root)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	return plugins.NewRootGuard(projectDir).Escape(s.root)
}

// docSummary is what listings need of a skill or recipe, cached per file
// version so a warm listing parses no YAML.
type docSummary struct {
	Description string
	Invalid     string
	Warnings    []string
}

// docSummaryCodec stores a summary as the number of warnings, the invalid
// reason and each warning Go-quoted, then the description as it is:
// `1 "" "a warning" Reviews a pull request.`. A warm skill listing
// decodes one per skill, twice (at load and at lookup), and JSON's
// reflection was a tenth of its time. Only that form is read; anything
// else is a corrupt cache, rebuilt (so is a cache written as JSON by an
// earlier quiver).
var docSummaryCodec = codec[docSummary]{
	encode: func(d docSummary) string {
		b := make([]byte, 0, len(d.Description)+16)
		b = strconv.AppendInt(b, int64(len(d.Warnings)), 10)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, d.Invalid)
		for _, w := range d.Warnings {
			b = append(b, ' ')
			b = strconv.AppendQuote(b, w)
		}
		b = append(b, ' ')
		return string(append(b, d.Description...))
	},
	decode: func(s string) (docSummary, bool) {
		var d docSummary
		count, rest, _ := strings.Cut(s, " ")
		n, err := strconv.Atoi(count)
		// Each warning takes three bytes at least (`"" `): a count
		// beyond that is no summary this codec wrote.
		if err != nil || n < 0 || n > len(rest)/3 || strconv.Itoa(n) != count {
			return d, false
		}
		var ok bool
		if d.Invalid, rest, ok = cutQuotedWord(rest); !ok {
			return d, false
		}
		for range n { // grown as read: a count alone allocates nothing
			var w string
			if w, rest, ok = cutQuotedWord(rest); !ok {
				return d, false
			}
			d.Warnings = append(d.Warnings, w)
		}
		d.Description = rest
		return d, true
	},
}

// cutQuotedWord reads a double-quoted Go string, as strconv.Quote writes
// it (no other spelling of the same text), and the space after it from
// the start of s.
func cutQuotedWord(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	v, rest, ok := cutQuoted(s)
	q := s[:len(s)-len(rest)]
	if !ok || !strings.HasPrefix(rest, " ") || (len(q) > 2 && strconv.Quote(v) != q) {
		return "", "", false
	}
	return v, rest[1:], true
}

// summarize returns the item's listing fields, from the cache when the
// file is unchanged. Frontmatter and Body are left empty: InspectDoc reads
// them for show.
func summarize(c *fileCache[docSummary], contents plugins.Contents, kind Kind, it plugins.Item) Doc {
	fi, err := statOf(contents, it.Path)
	if err != nil {
		return Doc{Kind: kind, Name: it.Name, Path: it.Path, Status: Invalid, Reason: err.Error()}
	}
	sum, ok := c.lookup(it.Path, fi)
	if !ok {
		full := InspectDoc(kind, it.Path, it.Name)
		sum = docSummary{Description: full.Description, Warnings: full.Warnings}
		if full.Status == Invalid {
			sum.Invalid = full.Reason
		}
		c.store(it.Path, fi, sum)
	}
	d := Doc{Kind: kind, Name: it.Name, Path: it.Path, Status: Active, Description: sum.Description, Warnings: sum.Warnings}
	if sum.Invalid != "" {
		d.Status, d.Reason = Invalid, sum.Invalid
	}
	return d
}

// InspectDoc reads one skill (its SKILL.md) or recipe file called itemName
// and parses its frontmatter. A file that cannot be read or parsed comes
// back Invalid with the reason, never as an error of a whole listing.
func InspectDoc(kind Kind, path, itemName string) Doc {
	d := Doc{Kind: kind, Name: itemName, Path: path, Status: Active}
	readDoc(&d, itemName)
	return d
}

func readDoc(d *Doc, itemName string) {
	info := format.ReadDoc(d.Path, itemName, d.Kind == Skill)
	d.Frontmatter, d.Body, d.Description, d.Warnings = info.Frontmatter, info.Body, info.Description, info.Warnings
	if info.Err != nil {
		d.Status, d.Reason = Invalid, info.Err.Error()
	}
}

func resolveDocs(ds []Doc) {
	shadow(ds, func(d *Doc) (string, func() string, *Status, *string) {
		return d.Name, func() string { return describe(d.Location, d.Plugin) }, &d.Status, &d.Reason
	})
}

// Find returns the item called name: the active one, else the first of
// any status, so show can explain why it is not in effect.
func Find(ds []Doc, name string) (Doc, bool) {
	var first *Doc
	for i := range ds {
		if ds[i].Name != name {
			continue
		}
		if ds[i].Status == Active {
			return ds[i], true
		}
		if first == nil {
			first = &ds[i]
		}
	}
	if first != nil {
		return *first, true
	}
	return Doc{}, false
}
