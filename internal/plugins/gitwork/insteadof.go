package gitwork

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// Rewrites are the user's `url.<base>.insteadOf` rules (SPEC §5): a URL
// that starts with an insteadOf value is fetched from base plus the rest,
// the longest match winning, as git does. This is how a company points
// https://github.com/ at its mirror. The lock keeps the URL as written,
// so a teammate without the mirror fetches from the original.
type Rewrites []Rewrite

// Rewrite is one insteadOf rule.
type Rewrite struct {
	Base, InsteadOf string
}

// LoadRewrites reads the insteadOf rules of the given git config files
// with go-git's config parser (every insteadOf of a url section counts,
// as in git). A missing file is no rules; one that does not parse is an
// error naming it, for the caller to report: fetching past the user's
// mirror without a word would surprise.
func LoadRewrites(paths []string) (Rewrites, error) {
	var out Rewrites
	for _, p := range paths {
		data, err := safefs.ReadFile(p, safefs.MaxMeta)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read git config: %w", err)
		}
		cfg := format.New()
		if err := format.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
			return nil, fmt.Errorf("git config %s does not parse: %v", p, err)
		}
		for _, sub := range cfg.Section("url").Subsections {
			for _, from := range sub.Options.GetAll("insteadOf") {
				if from != "" {
					out = append(out, Rewrite{Base: sub.Name, InsteadOf: from})
				}
			}
		}
	}
	return out, nil
}

// Apply rewrites url by the longest matching rule; unchanged if none.
func (r Rewrites) Apply(url string) string {
	best := -1
	for i, rw := range r {
		if strings.HasPrefix(url, rw.InsteadOf) && (best < 0 || len(rw.InsteadOf) > len(r[best].InsteadOf)) {
			best = i
		}
	}
	if best < 0 {
		return url
	}
	return r[best].Base + url[len(r[best].InsteadOf):]
}
