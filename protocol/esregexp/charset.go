package esregexp

import (
	"slices"
	"sync"
	"unicode"
)

// maxCodePoint is the largest Unicode code point.
const maxCodePoint = unicode.MaxRune

// maxCodeUnit is the largest UTF-16 code unit; the universe of a pattern
// without the u or v flag.
const maxCodeUnit = 0xFFFF

const (
	surrogateMin = 0xD800
	highSurMax   = 0xDBFF
	lowSurMin    = 0xDC00
	surrogateMax = 0xDFFF
)

// rng is an inclusive range of code points (or code units).
type rng struct{ lo, hi rune }

// runeSet is a sorted list of disjoint, non-adjacent ranges.
type runeSet []rng

// makeSet sorts and merges arbitrary ranges into a runeSet. It reuses rs.
func makeSet(rs []rng) runeSet {
	if len(rs) < 2 {
		return runeSet(rs)
	}
	slices.SortFunc(rs, func(a, b rng) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.lo <= last.hi+1 {
			if r.hi > last.hi {
				last.hi = r.hi
			}
			continue
		}
		out = append(out, r)
	}
	return runeSet(out)
}

// single returns the set holding only r.
func single(r rune) runeSet { return runeSet{{r, r}} }

// contains reports whether r is in s.
func (s runeSet) contains(r rune) bool {
	i, j := 0, len(s)
	for i < j {
		h := int(uint(i+j) >> 1)
		switch {
		case r < s[h].lo:
			j = h
		case r > s[h].hi:
			i = h + 1
		default:
			return true
		}
	}
	return false
}

// equal reports whether s and t hold the same elements.
func (s runeSet) equal(t runeSet) bool { return slices.Equal(s, t) }

// union returns s ∪ t.
func union(s, t runeSet) runeSet {
	if len(s) == 0 {
		return t
	}
	if len(t) == 0 {
		return s
	}
	all := make([]rng, 0, len(s)+len(t))
	all = append(all, s...)
	all = append(all, t...)
	return makeSet(all)
}

// complement returns [0, max] \ s. Elements of s above max are ignored.
func (s runeSet) complement(max rune) runeSet {
	var out runeSet
	next := rune(0)
	for _, r := range s {
		if r.lo > max {
			break
		}
		if r.lo > next {
			out = append(out, rng{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= max {
		out = append(out, rng{next, max})
	}
	return out
}

// intersect returns s ∩ t.
func intersect(s, t runeSet) runeSet {
	var out runeSet
	i, j := 0, 0
	for i < len(s) && j < len(t) {
		lo := max(s[i].lo, t[j].lo)
		hi := min(s[i].hi, t[j].hi)
		if lo <= hi {
			out = append(out, rng{lo, hi})
		}
		if s[i].hi < t[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// subtract returns s \ t.
func subtract(s, t runeSet) runeSet {
	return intersect(s, t.complement(maxCodePoint))
}

var (
	surrogateSet = runeSet{{surrogateMin, surrogateMax}}
	astralSet    = runeSet{{0x10000, maxCodePoint}}
	fullSet      = runeSet{{0, maxCodePoint}}

	digitSet = runeSet{{'0', '9'}}
	wordSet  = runeSet{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	// spaceSet is ECMAScript's \s: WhiteSpace and LineTerminator.
	spaceSet = runeSet{
		{0x09, 0x0D}, {0x20, 0x20}, {0xA0, 0xA0}, {0x1680, 0x1680},
		{0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F},
		{0x3000, 0x3000}, {0xFEFF, 0xFEFF},
	}
	// lineTerminators is what ECMAScript's . excludes without the s flag.
	lineTerminators = runeSet{{0x0A, 0x0A}, {0x0D, 0x0D}, {0x2028, 0x2029}}
)

// tableSets caches the runeSet of each unicode.RangeTable used by a pattern.
var tableSets sync.Map // *unicode.RangeTable -> runeSet

// tableSet returns the code points of t as a runeSet.
func tableSet(t *unicode.RangeTable) runeSet {
	if v, ok := tableSets.Load(t); ok {
		return v.(runeSet)
	}
	var rs []rng
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			rs = append(rs, rng{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			rs = append(rs, rng{c, c})
		}
	}
	for _, r := range t.R16 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	s := makeSet(rs)
	v, _ := tableSets.LoadOrStore(t, s)
	return v.(runeSet)
}
