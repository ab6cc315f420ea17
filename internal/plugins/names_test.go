package plugins

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestNameLoopsMatchRegexps checks the byte loops that replaced regexps
// (slow to compile at start-up) against those regexps, on every short
// string over an alphabet of the edge cases and on random longer ones.
func TestNameLoopsMatchRegexps(t *testing.T) {
	for _, c := range []struct {
		name string
		re   *regexp.Regexp
		f    func(string) bool
	}{
		{"partName", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`), partName},
		{"configKeyName", regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`), configKeyName},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range nameCorpus(t) {
				if got, want := c.f(s), c.re.MatchString(s); got != want {
					t.Fatalf("%s(%q) = %v, the regexp says %v", c.name, s, got, want)
				}
			}
		})
	}
}

// nameCorpus is every string of up to 3 characters over an alphabet of
// boundary characters, and random strings of 60 to 70 (around the length
// limits) over the same alphabet.
func nameCorpus(t *testing.T) []string {
	alphabet := []string{"a", "Z", "0", "9", "_", "-", ".", "/", " ", "\n", "$", "é", "\xff", "@", "`", "{", "[", ":"}
	out := []string{""}
	prev := []string{""}
	for range 3 {
		var next []string
		for _, p := range prev {
			for _, a := range alphabet {
				next = append(next, p+a)
			}
		}
		out = append(out, next...)
		prev = next
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for range 2000 {
		n := 60 + r.IntN(70)
		b := []byte{"aZ_9"[r.IntN(4)]}
		for len(b) < n {
			if r.IntN(200) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))]...)
			} else {
				b = append(b, "az09_-."[r.IntN(7)])
			}
		}
		out = append(out, string(b))
	}
	return out
}
