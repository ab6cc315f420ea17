package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestValueBuildsOnce: however many goroutines ask at once, New runs once
// and every one of them gets what it built.
func TestValueBuildsOnce(t *testing.T) {
	var built atomic.Int32
	v := &Value[*int]{New: func() *int {
		built.Add(1)
		n := 42
		return &n
	}}
	var wg sync.WaitGroup
	got := make([]*int, 32)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = v.Get()
		}()
	}
	wg.Wait()
	if built.Load() != 1 {
		t.Fatalf("New ran %d times, want once", built.Load())
	}
	for i, p := range got {
		if p != got[0] || *p != 42 {
			t.Fatalf("Get %d returned %v, want the one value built", i, p)
		}
	}
}

// TestRegexpCompilesAtFirstGet: a Regexp holds nothing until asked, then
// the one compiled expression.
func TestRegexpCompilesAtFirstGet(t *testing.T) {
	word := &Regexp{Expr: `^[a-z]+$`}
	if word.re != nil {
		t.Fatal("compiled before the first Get")
	}
	re := word.Get()
	if !re.MatchString("quiver") || re.MatchString("Quiver") || word.Get() != re {
		t.Fatalf("Get returned %v", re)
	}
}

// TestRegexpPanicsOnABadExpression, as regexp.MustCompile does: a bad
// pattern is the program's bug, found at its first use.
func TestRegexpPanicsOnABadExpression(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	bad := &Regexp{Expr: `(`}
	bad.Get()
}
