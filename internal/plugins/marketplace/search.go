package marketplace

import "strings"

// Words splits search terms into lowercase words, whether they came as
// one quoted argument or several: `search code review` and `search "code
// review"` mean the same.
func Words(terms []string) []string {
	var out []string
	for _, t := range terms {
		out = append(out, strings.Fields(strings.ToLower(t))...)
	}
	return out
}

// The weight of a word's best match, by where it matched (SPEC §12): a
// name equal to the word first, then a name containing it, then a
// keyword, category or tag, then the description only.
const (
	scoreName     = 100
	scoreInName   = 50
	scoreKeyword  = 20
	scoreDescribe = 10
)

// Score ranks entry e for words (lowercase; see Words): every word must
// match somewhere, and the scores of each word's best match add up. No
// words match every entry with score 0.
func Score(e Entry, words []string) (int, bool) {
	name := strings.ToLower(e.Name)
	total := 0
	for _, w := range words {
		best := 0
		switch {
		case name == w:
			best = scoreName
		case strings.Contains(name, w):
			best = scoreInName
		case containsAny(w, e.Category) || containsAny(w, e.Keywords...) || containsAny(w, e.Tags...):
			best = scoreKeyword
		case containsAny(w, e.Description):
			best = scoreDescribe
		}
		if best == 0 {
			return 0, false
		}
		total += best
	}
	return total, true
}

func containsAny(w string, fields ...string) bool {
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), w) {
			return true
		}
	}
	return false
}
