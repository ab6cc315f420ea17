// Package lazy holds package-level values that are built at first use.
//
// Every package quiver links runs its initialisation in every process
// quiver starts, and an agent starts one at every event (issue 30). A
// package-level sync.OnceValue is a call at start-up that allocates its
// closure; a Value or Regexp here is plain data the compiler lays out, so
// a package that keeps its tables and patterns in them does nothing at
// start-up at all.
package lazy

import (
	"regexp"
	"sync"
)

// Value is a value built by New at the first Get, once, whoever calls
// first. Declare it as a package-level variable with New set; it must
// not be copied after the first Get.
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, building it first if no Get has.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}

// Regexp is a regular expression compiled at the first Get. Expr must
// compile: a bad one panics there, as regexp.MustCompile does.
type Regexp struct {
	Expr string
	once sync.Once
	re   *regexp.Regexp
}

// Get returns the compiled expression.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.Expr) })
	return r.re
}
