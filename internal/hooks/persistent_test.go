package hooks

import (
	"strings"
	"testing"
)

// FuzzPersistentAnswer: a persistent hook's answer line is other people's
// bytes. Whatever it is, decode returns, and accepts only an answer for
// the id asked with an exit status a process could have.
func FuzzPersistentAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"id":1,"result":{"blocked":true,"reason":"no"}}`,
		`{"id":1,"result":null}`,
		`{"id":1,"exit":2,"stderr":"blocked"}`,
		`{"id":2,"result":{}}`,
		`{"id":1,"exit":-1}`,
		`{"id":1}{"id":1}`,
		`{"id":1.5,"result":"x"}`,
		"not json\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		hp := &hookProcess{stderr: &tail{max: MaxStderr}}
		r, err := hp.decode(1, []byte(line))
		if err != nil {
			return
		}
		if !strings.Contains(line, "1") {
			t.Fatalf("accepted %q without the id asked", line)
		}
		if r.ExitCode < 0 || r.ExitCode > 255 || len(r.Stderr) > MaxStderr {
			t.Fatalf("accepted %q as exit %d, %d bytes of stderr", line, r.ExitCode, len(r.Stderr))
		}
		if _, err := DecodeResponse(r.Stdout); err == nil && r.StdoutOverflow {
			t.Fatalf("an overflowing result of %d bytes", len(r.Stdout))
		}
	})
}
