package format

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestEnvNameMatchesRegexp checks the loop that replaced a regexp (slow to
// compile at start-up) against it, on every short string over an alphabet
// of edge cases and on random ones around the length limit.
func TestEnvNameMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	alphabet := []string{"a", "Z", "0", "9", "_", "-", ".", " ", "\n", "$", "é", "\xff", "@", "`", "{", "[", ":"}
	corpus, prev := []string{""}, []string{""}
	for range 3 {
		var next []string
		for _, p := range prev {
			for _, a := range alphabet {
				next = append(next, p+a)
			}
		}
		corpus, prev = append(corpus, next...), next
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for range 2000 {
		b := []byte{"aZ_9"[r.IntN(4)]}
		for n := 120 + r.IntN(20); len(b) < n; {
			if r.IntN(300) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))]...)
			} else {
				b = append(b, "az09_"[r.IntN(5)])
			}
		}
		corpus = append(corpus, string(b))
	}
	for _, s := range corpus {
		if got, want := envName(s), re.MatchString(s); got != want {
			t.Fatalf("envName(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}
