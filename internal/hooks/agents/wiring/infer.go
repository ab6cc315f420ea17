package wiring

// InferCreated is what quiver would have recorded creating in a file it
// finds holding its members with no record of writing them (a teammate's
// clone of a file quiver wrote, issue 43): the objects on the way to
// those members that hold nothing else, and whether the file holds
// nothing else at all. Two teammates then take out the same when the
// members go, and their files stay alike: the author's quiver removes
// what it created, and so does the teammate's. Only members that hold
// exactly what quiver would write count.
func InferCreated(data []byte, syntax Syntax, toml bool, want []Member) (created []string, createdFile bool) {
	if toml {
		doc, err := readTOML(data)
		if err != nil {
			return nil, false
		}
		rest := doc.value
		for _, m := range want {
			if cur, ok := doc.get(m.Keys); ok && tomlHash(cur) == valueHash(m.Value) {
				rest = without(rest, m.Keys)
			}
		}
		return nil, emptyTree(rest)
	}
	d, err := ParseDoc(data, syntax)
	if err != nil {
		return nil, false
	}
	var ours [][]string
	for _, m := range want {
		if cur := d.Get(m.Keys...); cur != nil && valueHash(cur) == valueHash(m.Value) {
			d.Delete(m.Keys, nil)
			ours = append(ours, m.Keys)
		}
	}
	if len(ours) == 0 {
		return nil, false
	}
	// Deepest first: an object emptied by taking quiver's members out
	// was quiver's.
	seen := map[string]bool{}
	for depth := 0; ; depth++ {
		more := false
		for _, keys := range ours {
			n := len(keys) - 1 - depth
			if n <= 0 {
				continue
			}
			more = true
			path := keys[:n]
			k := keyOf(path)
			if seen[k] {
				continue
			}
			if v := d.Get(path...); v != nil && string(v) == "{}" {
				seen[k] = true
				created = append(created, k)
				d.Delete(path, nil)
			}
		}
		if !more {
			break
		}
	}
	return created, d.Empty()
}

// emptyTree reports a decoded TOML document that holds only empty tables.
func emptyTree(v map[string]any) bool {
	for _, x := range v {
		m, ok := x.(map[string]any)
		if !ok || !emptyTree(m) {
			return false
		}
	}
	return true
}
