package async

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestSafeSessionMatchesRegexp checks the loop that replaced a regexp
// (slow to compile at start-up) against it, on every short string over an
// alphabet of edge cases and on random ones around the length limit.
func TestSafeSessionMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
	alphabet := []string{"a", "Z", "0", "9", "_", "-", ".", "/", " ", "\n", "$", "é", "\xff", "@", "`", "{", "[", ":"}
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
		b := []byte{"aZ_9."[r.IntN(5)]}
		for n := 90 + r.IntN(20); len(b) < n; {
			if r.IntN(200) == 0 {
				b = append(b, alphabet[r.IntN(len(alphabet))]...)
			} else {
				b = append(b, "az09_-."[r.IntN(7)])
			}
		}
		corpus = append(corpus, string(b))
	}
	for _, s := range corpus {
		if got, want := safeSession(s), re.MatchString(s); got != want {
			t.Fatalf("safeSession(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}
