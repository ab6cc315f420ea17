package wiring

// Drifted says which of owned (the members the record says quiver wrote
// into a file, with the hash of each value) data no longer holds as
// quiver wrote them: gone, or holding another value. syntax and toml
// say how the file is written, as its adapter says. A file that does not
// parse is an error.
func Drifted(data []byte, syntax Syntax, toml bool, owned []Owned) (gone, changed [][]string, err error) {
	var get func(keys []string) (hash string, ok bool)
	if toml {
		doc, err := readTOML(data)
		if err != nil {
			return nil, nil, err
		}
		get = func(keys []string) (string, bool) {
			v, ok := doc.get(keys)
			if !ok {
				return "", false
			}
			return tomlHash(v), true
		}
	} else {
		d, err := ParseDoc(data, syntax)
		if err != nil {
			return nil, nil, err
		}
		get = func(keys []string) (string, bool) {
			v := d.Get(keys...)
			if v == nil {
				return "", false
			}
			return valueHash(v), true
		}
	}
	for _, o := range owned {
		switch hash, ok := get(o.Keys); {
		case !ok:
			gone = append(gone, o.Keys)
		case hash != o.Hash:
			changed = append(changed, o.Keys)
		}
	}
	return gone, changed, nil
}

// Unheld says which of owned (array elements the record says quiver
// wrote, each by its array and the hash of its value) data no longer
// holds as written: gone, or edited. Two records of the same element
// need it twice.
func Unheld(data []byte, syntax Syntax, owned []Owned) ([]Owned, error) {
	d, err := ParseDoc(data, syntax)
	if err != nil {
		return nil, err
	}
	held := map[string]int{}
	counted := map[string]bool{}
	var out []Owned
	for _, o := range owned {
		if k := keyOf(o.Keys); !counted[k] {
			counted[k] = true
			elems, err := d.Array(o.Keys...)
			if err != nil {
				return nil, err
			}
			for _, el := range elems {
				held[k+"\x00"+valueHash(el)]++
			}
		}
		if k := keyOf(o.Keys) + "\x00" + o.Hash; held[k] > 0 {
			held[k]--
			continue
		}
		out = append(out, o)
	}
	return out, nil
}
