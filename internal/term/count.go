package term

import (
	"strconv"
	"strings"
)

// Count is n and the noun, singular or plural as n asks: "1 plugin",
// "0 plugins", "3 entries". one is the singular; Count forms the plural
// by English's regular rules (Counts takes an irregular one).
func Count(n int, one string) string {
	return strconv.Itoa(n) + " " + Plural(n, one)
}

// Plural is the noun one, made plural unless n is 1.
func Plural(n int, one string) string {
	if n == 1 {
		return one
	}
	return plural(one)
}

// Counts is Count with the plural given, for nouns English forms its own
// way, or phrases ("hook of the project").
func Counts(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func plural(word string) string {
	// The noun is the last word of a phrase ("project hook").
	head, last := "", word
	if i := strings.LastIndexByte(word, ' '); i >= 0 {
		head, last = word[:i+1], word[i+1:]
	}
	switch {
	case last == "":
		return word
	case strings.HasSuffix(last, "s"), strings.HasSuffix(last, "x"), strings.HasSuffix(last, "ch"), strings.HasSuffix(last, "sh"):
		return head + last + "es"
	case strings.HasSuffix(last, "y") && len(last) > 1 && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
		return head + last[:len(last)-1] + "ies"
	}
	return head + last + "s"
}
