package esregexp

import (
	"slices"
	"sync"
	"unicode"
)

// A foldTable holds the case-insensitive equivalence classes of one
// ECMAScript Canonicalize function (ES2024 §22.2.2.7.3): two characters
// match under the i flag exactly when they belong to the same class.
type foldTable struct {
	chars []rune          // sorted: every character whose class has more than one member
	class map[rune][]rune // sorted members of that class, shared by all of them
	once  sync.Once
	build func(*foldTable) // fills chars and class
}

func (t *foldTable) init() { t.once.Do(func() { t.build(t) }) }

// members returns the class of r, or nil when r matches only itself.
func (t *foldTable) members(r rune) []rune {
	t.init()
	return t.class[r]
}

// closure returns every character whose class meets s: the set a
// CharacterSetMatcher over s accepts when ignoring case.
func (t *foldTable) closure(s runeSet) runeSet {
	t.init()
	var extra []rng
	for _, r := range s {
		i, _ := slices.BinarySearch(t.chars, r.lo)
		for ; i < len(t.chars) && t.chars[i] <= r.hi; i++ {
			for _, m := range t.class[t.chars[i]] {
				if !s.contains(m) {
					extra = append(extra, rng{m, m})
				}
			}
		}
	}
	if len(extra) == 0 {
		return s
	}
	return union(s, makeSet(extra))
}

// setClasses records the groups with more than one member as classes.
func (t *foldTable) setClasses(groups map[rune][]rune) {
	t.class = make(map[rune][]rune)
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		slices.Sort(g)
		g = slices.Compact(g)
		if len(g) < 2 {
			continue
		}
		for _, c := range g {
			t.class[c] = g
			t.chars = append(t.chars, c)
		}
	}
	slices.Sort(t.chars)
}

// legacyFold is Canonicalize without the u and v flags: each UTF-16 code unit
// maps to its toUppercase, unless that is more than one code unit long or
// maps a non-ASCII unit to an ASCII one. Code points above U+FFFF never fold
// (their surrogates map to themselves).
var legacyFold = &foldTable{build: func(t *foldTable) {
	groups := make(map[rune][]rune)
	for _, cr := range unicode.CaseRanges {
		for c := rune(cr.Lo); c <= rune(cr.Hi) && c <= maxCodeUnit; c++ {
			if k := legacyCanonicalize(c); k != c {
				groups[k] = append(groups[k], c)
			}
		}
	}
	for k, g := range groups {
		if legacyCanonicalize(k) == k {
			groups[k] = append(g, k)
		}
	}
	t.setClasses(groups)
}}

// multiUnitUppercase lists the BMP characters whose full uppercase mapping
// (SpecialCasing.txt) has more than one code unit; Canonicalize without u or
// v leaves them unchanged although UnicodeData gives some a simple uppercase.
var multiUnitUppercase = runeSet{
	{0x00DF, 0x00DF}, {0x0149, 0x0149}, {0x01F0, 0x01F0}, {0x0390, 0x0390},
	{0x03B0, 0x03B0}, {0x0587, 0x0587}, {0x1E96, 0x1E9A}, {0x1F50, 0x1F50},
	{0x1F52, 0x1F52}, {0x1F54, 0x1F54}, {0x1F56, 0x1F56}, {0x1F80, 0x1FAF},
	{0x1FB2, 0x1FB4}, {0x1FB6, 0x1FB7}, {0x1FBC, 0x1FBC}, {0x1FC2, 0x1FC4},
	{0x1FC6, 0x1FC7}, {0x1FCC, 0x1FCC}, {0x1FD2, 0x1FD3}, {0x1FD6, 0x1FD7},
	{0x1FE2, 0x1FE4}, {0x1FE6, 0x1FE7}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FF7},
	{0x1FFC, 0x1FFC}, {0xFB00, 0xFB06}, {0xFB13, 0xFB17},
}

func legacyCanonicalize(c rune) rune {
	if c > maxCodeUnit || multiUnitUppercase.contains(c) {
		return c
	}
	u := unicode.ToUpper(c)
	if u > maxCodeUnit || (c >= 0x80 && u < 0x80) {
		return c
	}
	return u
}

// unicodeFoldExtra lists simple case foldings (status S in CaseFolding.txt)
// added in Unicode 15.1, after the Unicode 15.0 tables of package unicode.
var unicodeFoldExtra = [][2]rune{{0x0390, 0x1FD3}, {0x03B0, 0x1FE3}, {0xFB05, 0xFB06}}

// unicodeFold is Canonicalize with the u or v flag: simple case folding
// (CaseFolding.txt statuses C and S). Its classes are the orbits of
// unicode.SimpleFold, which package unicode derives from the same file.
var unicodeFold = &foldTable{build: func(t *foldTable) {
	parent := make(map[rune]rune)
	var find func(r rune) rune
	find = func(r rune) rune {
		p, ok := parent[r]
		if !ok || p == r {
			return r
		}
		root := find(p)
		parent[r] = root
		return root
	}
	join := func(a, b rune) {
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[ra] = rb
		}
	}
	for _, cr := range unicode.CaseRanges {
		for c := rune(cr.Lo); c <= rune(cr.Hi); c++ {
			for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
				join(c, f)
			}
		}
	}
	for _, p := range unicodeFoldExtra {
		join(p[0], p[1])
	}
	groups := make(map[rune][]rune)
	for c := range parent {
		root := find(c)
		groups[root] = append(groups[root], c)
	}
	for root, g := range groups {
		if !slices.Contains(g, root) {
			groups[root] = append(g, root)
		}
	}
	t.setClasses(groups)
}}
