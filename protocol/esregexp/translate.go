package esregexp

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Compile translates an ECMAScript pattern with flags into a Go regexp that,
// applied with MatchString to a normalized subject (§10.3), gives the
// ECMAScript RegExp.prototype.test result from position 0 (lastIndex reset).
//
// It returns *FlagsError when flags fail ValidFlags, *SyntaxError when source
// is not a valid ECMAScript pattern under flags, and *UnsupportedError when
// the pattern is valid but uses a construct RE2 cannot evaluate with
// ECMAScript semantics. Classify the error with errors.As.
func Compile(source, flags string) (*regexp.Regexp, error) {
	expr, err := translate(source, flags)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, limitError(source, flags, err)
	}
	return re, nil
}

// Translate is Compile without compiling: it returns the RE2 source Compile
// would compile (for tests and diagnostics), or the same error Compile would
// return. The source is checked with regexp/syntax, so RE2's size limits are
// reported here too.
func Translate(source, flags string) (string, error) {
	expr, err := translate(source, flags)
	if err != nil {
		return "", err
	}
	if _, err := syntax.Parse(expr, syntax.Perl); err != nil {
		return "", limitError(source, flags, err)
	}
	return expr, nil
}

// limitError turns RE2's refusal of a translated pattern (its size, nesting
// and total repetition limits) into an UnsupportedError.
func limitError(source, flags string, err error) error {
	construct := "a construct RE2 rejects (" + err.Error() + ")"
	var se *syntax.Error
	if errors.As(err, &se) {
		switch se.Code {
		case syntax.ErrInvalidRepeatSize:
			construct = "nested repetition counts above 1000 in total"
		case syntax.ErrLarge:
			construct = "a pattern larger than RE2's size limit"
		case syntax.ErrNestingDepth:
			construct = "nesting deeper than RE2's limit of 1000"
		}
	}
	return &UnsupportedError{Source: source, Flags: flags, Construct: construct}
}

// maxCount is the largest repetition count RE2 accepts.
const maxCount = 1000

// state holds the flags that modifier groups can change.
type state struct {
	ignoreCase, multiline, dotAll bool
}

// parser is a recursive-descent parser of ES2024 §22.2.1 Pattern (with the
// Annex B.1.2 grammar when neither u nor v is set) that writes the RE2
// translation as it goes.
type parser struct {
	source, flags string

	src      []rune // code points with u or v; UTF-16 code units without
	pos      int
	uMode    bool // u or v: [+UnicodeMode]
	vMode    bool // v: [+UnicodeSetsMode]
	nMode    bool // [+NamedCaptureGroups]: unicode mode or the pattern has a group name
	universe rune // largest character: maxCodePoint or maxCodeUnit
	fold     *foldTable

	groupCount int             // capturing groups in the whole pattern
	names      map[string]bool // group names seen so far
	namedRefs  []string        // \k<name> references, checked at the end

	unsupported string // the first construct RE2 cannot evaluate
	out         strings.Builder
}

// syntaxFailure aborts the parse of an invalid pattern.
type syntaxFailure struct{ reason string }

func (p *parser) fail(reason string) { panic(syntaxFailure{reason}) }

// refuse records a construct RE2 cannot evaluate. Parsing goes on: a syntax
// error later in the pattern takes precedence.
func (p *parser) refuse(construct string) {
	if p.unsupported == "" {
		p.unsupported = construct
	}
}

func translate(source, flags string) (expr string, err error) {
	if !ValidFlags(flags) {
		return "", &FlagsError{Flags: flags}
	}
	p := &parser{source: source, flags: flags}
	p.vMode = containsByte(flags, 'v')
	p.uMode = p.vMode || containsByte(flags, 'u')
	if p.uMode {
		p.src = []rune(source)
		p.universe = maxCodePoint
		p.fold = unicodeFold
	} else {
		p.src = codeUnits(source)
		p.universe = maxCodeUnit
		p.fold = legacyFold
	}
	hasNames := p.prescan()
	p.nMode = p.uMode || hasNames
	st := state{
		ignoreCase: containsByte(flags, 'i'),
		multiline:  containsByte(flags, 'm'),
		dotAll:     containsByte(flags, 's'),
	}

	if st.multiline {
		p.out.WriteString("(?m)")
	}
	sticky := containsByte(flags, 'y')
	if sticky {
		p.out.WriteString(`\A(?:`)
	}
	if reason, ok := p.parsePattern(st); !ok {
		return "", &SyntaxError{Source: source, Flags: flags, Reason: reason}
	}
	if p.unsupported != "" {
		return "", &UnsupportedError{Source: source, Flags: flags, Construct: p.unsupported}
	}
	if sticky {
		p.out.WriteByte(')')
	}
	return p.out.String(), nil
}

// codeUnits returns the UTF-16 code units of s, one per rune.
func codeUnits(s string) []rune {
	units := make([]rune, 0, len(s))
	for _, r := range s {
		if r > maxCodeUnit {
			hi, lo := utf16.EncodeRune(r)
			units = append(units, hi, lo)
			continue
		}
		units = append(units, r)
	}
	return units
}

// parsePattern parses the whole source; ok is false for a syntax error.
func (p *parser) parsePattern(st state) (reason string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			f, isFailure := r.(syntaxFailure)
			if !isFailure {
				panic(r)
			}
			reason, ok = f.reason, false
		}
	}()
	p.parseDisjunction(st)
	if p.pos < len(p.src) {
		// Only an unbalanced ')' stops a top-level disjunction early.
		p.fail("Unmatched ')'")
	}
	for _, name := range p.namedRefs {
		if !p.names[name] {
			p.fail("Invalid named capture referenced")
		}
	}
	return "", true
}

// prescan counts the capturing groups of the whole pattern (a decimal
// escape refers to any of them, even a later one) and reports whether the
// pattern has a group name.
func (p *parser) prescan() (hasNames bool) {
	src := p.src
	inClass := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '[':
			if p.vMode {
				inClass++
			} else {
				inClass = 1
			}
		case ']':
			if inClass > 0 {
				inClass--
			}
		case '(':
			if inClass > 0 {
				continue
			}
			if i+1 < len(src) && src[i+1] == '?' {
				if i+3 < len(src) && src[i+2] == '<' && src[i+3] != '=' && src[i+3] != '!' {
					p.groupCount++
					hasNames = true
				}
				continue
			}
			p.groupCount++
		}
	}
	return hasNames
}

// ---- low-level helpers ----

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) peekIs(c rune) bool { return p.pos < len(p.src) && p.src[p.pos] == c }

func (p *parser) at(i int) rune {
	if i < len(p.src) {
		return p.src[i]
	}
	return -1
}

func (p *parser) hasPrefix(s string) bool {
	i := p.pos
	for _, c := range s {
		if i >= len(p.src) || p.src[i] != c {
			return false
		}
		i++
	}
	return true
}

func isDigit(c rune) bool     { return c >= '0' && c <= '9' }
func isOctal(c rune) bool     { return c >= '0' && c <= '7' }
func isLetter(c rune) bool    { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isHigh(c rune) bool      { return c >= surrogateMin && c <= highSurMax }
func isLow(c rune) bool       { return c >= lowSurMin && c <= surrogateMax }
func isSurrogate(c rune) bool { return c >= surrogateMin && c <= surrogateMax }

func hexVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// isSyntaxChar reports ECMAScript's SyntaxCharacter.
func isSyntaxChar(c rune) bool { return strings.ContainsRune(`^$\.*+?()[]{}|`, c) }

// ---- disjunctions, alternatives, terms ----

func (p *parser) parseDisjunction(st state) {
	p.parseAlternative(st)
	for p.peekIs('|') {
		p.pos++
		p.out.WriteByte('|')
		p.parseAlternative(st)
	}
}

func (p *parser) parseAlternative(st state) {
	for !p.eof() && p.src[p.pos] != '|' && p.src[p.pos] != ')' {
		p.parseTerm(st)
	}
}

func (p *parser) parseTerm(st state) {
	c := p.src[p.pos]
	switch c {
	case '^', '$':
		p.pos++
		p.out.WriteRune(c)
		p.rejectQuantifier()
		return
	case '\\':
		if n := p.at(p.pos + 1); n == 'b' || n == 'B' {
			p.pos += 2
			p.out.WriteByte('\\')
			p.out.WriteRune(n)
			p.rejectQuantifier()
			return
		}
	case '(':
		p.parseGroup(st)
		return
	case '*', '+', '?':
		p.fail("Nothing to repeat")
	case '{':
		if _, _, _, ok := p.braceQuantifier(p.pos); ok {
			p.fail("Nothing to repeat")
		}
		if p.uMode {
			p.fail("Lone quantifier brackets")
		}
	case '}', ']':
		if p.uMode {
			p.fail("Lone quantifier brackets")
		}
	}
	a := p.parseAtom(st)
	if !p.uMode && isSurrogate(a.unit) {
		p.surrogateTerm(a)
		return
	}
	p.out.WriteString(a.text)
	p.parseQuantifier()
}

// surrogateTerm handles a literal surrogate code unit without u or v. A high
// surrogate followed by a low one matches the code point they encode (both
// unquantified); anything else would match half of a character, which RE2
// cannot do on UTF-8.
func (p *parser) surrogateTerm(a atom) {
	if isHigh(a.unit) && !p.quantifierAt(p.pos) {
		if low, n := p.lowSurrogateAt(p.pos); n > 0 {
			if p.quantifierAt(p.pos + n) {
				p.refuse("a quantifier on half of a surrogate pair without the u or v flag")
			}
			p.pos += n
			p.out.WriteString(literal(utf16.DecodeRune(a.unit, low)))
			p.parseQuantifier()
			return
		}
	}
	p.refuse(fmt.Sprintf(`lone surrogate \u%04X without the u or v flag`, a.unit))
	p.out.WriteString(`(?:)`)
	p.parseQuantifier()
}

// lowSurrogateAt recognizes a literal low surrogate at i, written raw or as
// \uXXXX, and returns it with its length in units (0 when there is none).
func (p *parser) lowSurrogateAt(i int) (rune, int) {
	c := p.at(i)
	if isLow(c) {
		return c, 1
	}
	if c == '\\' && p.at(i+1) == 'u' {
		v := 0
		for k := i + 2; k < i+6; k++ {
			h := hexVal(p.at(k))
			if h < 0 {
				return 0, 0
			}
			v = v<<4 | h
		}
		if isLow(rune(v)) {
			return rune(v), 6
		}
	}
	return 0, 0
}

// rejectQuantifier fails when a quantifier follows an assertion.
func (p *parser) rejectQuantifier() {
	if p.quantifierAt(p.pos) {
		p.fail("Nothing to repeat")
	}
}

// quantifierAt reports whether a Quantifier starts at i.
func (p *parser) quantifierAt(i int) bool {
	switch p.at(i) {
	case '*', '+', '?':
		return true
	case '{':
		_, _, _, ok := p.braceQuantifier(i)
		return ok
	}
	return false
}

// braceQuantifier parses {n}, {n,} or {n,m} at i. Counts saturate at
// math.MaxInt32 as in V8; max is -1 for {n,}.
func (p *parser) braceQuantifier(i int) (min, max, end int, ok bool) {
	if p.at(i) != '{' {
		return 0, 0, 0, false
	}
	i++
	num := func() (int, bool) {
		if !isDigit(p.at(i)) {
			return 0, false
		}
		n := 0
		for isDigit(p.at(i)) {
			if n <= (math.MaxInt32-9)/10 {
				n = n*10 + int(p.at(i)-'0')
			} else {
				n = math.MaxInt32
			}
			i++
		}
		return n, true
	}
	min, ok = num()
	if !ok {
		return 0, 0, 0, false
	}
	max = min
	if p.at(i) == ',' {
		i++
		if p.at(i) == '}' {
			max = -1
		} else if max, ok = num(); !ok {
			return 0, 0, 0, false
		}
	}
	if p.at(i) != '}' {
		return 0, 0, 0, false
	}
	return min, max, i + 1, true
}

// parseQuantifier parses an optional quantifier after an atom and writes it.
func (p *parser) parseQuantifier() {
	var q string
	switch c := p.at(p.pos); c {
	case '*', '+', '?':
		p.pos++
		q = string(c)
	case '{':
		min, max, end, ok := p.braceQuantifier(p.pos)
		if !ok {
			if p.uMode {
				p.fail("Incomplete quantifier")
			}
			return // Annex B: a literal '{' follows
		}
		p.pos = end
		if max >= 0 && min > max {
			p.fail("numbers out of order in {} quantifier")
		}
		switch {
		case min > maxCount || max > maxCount:
			p.refuse("repetition count above 1000")
		case max == min:
			q = "{" + strconv.Itoa(min) + "}"
		case max < 0:
			q = "{" + strconv.Itoa(min) + ",}"
		default:
			q = "{" + strconv.Itoa(min) + "," + strconv.Itoa(max) + "}"
		}
	default:
		return
	}
	if p.peekIs('?') {
		p.pos++
		q += "?"
	}
	p.out.WriteString(q)
}

// ---- groups ----

func (p *parser) parseGroup(st state) {
	switch {
	case p.hasPrefix("(?=") || p.hasPrefix("(?!"):
		construct := "lookahead " + string(p.src[p.pos:p.pos+3])
		p.pos += 3
		p.groupBody(st, "(?:")
		p.refuse(construct)
		if p.uMode {
			p.rejectQuantifier()
		} else {
			p.parseQuantifier() // Annex B QuantifiableAssertion
		}
		return
	case p.hasPrefix("(?<=") || p.hasPrefix("(?<!"):
		construct := "lookbehind " + string(p.src[p.pos:p.pos+4])
		p.pos += 4
		p.groupBody(st, "(?:")
		p.refuse(construct)
		if p.quantifierAt(p.pos) {
			p.fail("Invalid quantifier")
		}
		return
	case p.hasPrefix("(?:"):
		p.pos += 3
		p.groupBody(st, "(?:")
	case p.hasPrefix("(?<"):
		p.pos += 3
		name := p.parseGroupName()
		if p.names == nil {
			p.names = make(map[string]bool)
		}
		if p.names[name] {
			p.fail("Duplicate capture group name")
		}
		p.names[name] = true
		open := "("
		if goName(name) {
			open = "(?P<" + name + ">"
		}
		p.groupBody(st, open)
	case p.hasPrefix("(?"):
		p.pos += 2
		p.modifierGroup(st)
	default:
		p.pos++
		p.groupBody(st, "(")
	}
	p.parseQuantifier()
}

// groupBody parses a disjunction and its closing parenthesis.
func (p *parser) groupBody(st state, open string) {
	p.out.WriteString(open)
	p.parseDisjunction(st)
	if !p.peekIs(')') {
		p.fail("Unterminated group")
	}
	p.pos++
	p.out.WriteByte(')')
}

// modifierGroup parses the ES2025 (?ims-ims:…) after "(?".
func (p *parser) modifierGroup(st state) {
	var seen [2]string
	part := 0
	for {
		c := p.at(p.pos)
		switch {
		case c == 'i' || c == 'm' || c == 's':
			if strings.ContainsRune(seen[0], c) || strings.ContainsRune(seen[1], c) {
				p.fail("Repeated flag in modifiers group")
			}
			seen[part] += string(c)
			p.pos++
			continue
		case c == '-' && part == 0:
			part = 1
			p.pos++
			continue
		case c == ':' && (part == 0 && seen[0] != "" || part == 1 && seen[0]+seen[1] != ""):
			p.pos++
		default:
			p.fail("Invalid group")
		}
		break
	}
	next := st
	for _, c := range seen[0] {
		switch c {
		case 'i':
			next.ignoreCase = true
		case 'm':
			next.multiline = true
		case 's':
			next.dotAll = true
		}
	}
	for _, c := range seen[1] {
		switch c {
		case 'i':
			next.ignoreCase = false
		case 'm':
			next.multiline = false
		case 's':
			next.dotAll = false
		}
	}
	open := "(?:"
	if next.multiline != st.multiline {
		if next.multiline {
			open = "(?m:"
		} else {
			open = "(?-m:"
		}
	}
	p.groupBody(next, open)
}

// goName reports whether RE2 accepts name as a capture name.
func goName(name string) bool {
	for _, c := range name {
		if c != '_' && !isAlnum(c) {
			return false
		}
	}
	return name != ""
}

// parseGroupName parses RegExpIdentifierName ">" after "<".
func (p *parser) parseGroupName() string {
	var name []rune
	for {
		if p.eof() {
			p.fail("Invalid capture group name")
		}
		c := p.src[p.pos]
		if c == '>' {
			p.pos++
			break
		}
		switch {
		case c == '\\':
			p.pos++
			if !p.peekIs('u') {
				p.fail("Invalid capture group name")
			}
			p.pos++
			v, ok := p.unicodeEscape(true)
			if !ok {
				p.fail("Invalid Unicode escape in group name")
			}
			c = v
		case isHigh(c) && isLow(p.at(p.pos+1)):
			c = utf16.DecodeRune(c, p.at(p.pos+1))
			p.pos += 2
		default:
			p.pos++
		}
		if len(name) == 0 && !isIDStart(c) || len(name) > 0 && !isIDPart(c) {
			p.fail("Invalid capture group name")
		}
		name = append(name, c)
	}
	if len(name) == 0 {
		p.fail("Invalid capture group name")
	}
	return string(name)
}

// isIDStart reports ID_Start (DerivedCoreProperties.txt), '$' or '_'.
func isIDStart(c rune) bool {
	if c == '$' || c == '_' {
		return true
	}
	return unicode.In(c, unicode.L, unicode.Nl, unicode.Other_ID_Start) &&
		!unicode.In(c, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

// isIDPart reports ID_Continue, '$', ZWNJ or ZWJ.
func isIDPart(c rune) bool {
	if isIDStart(c) || c == 0x200C || c == 0x200D {
		return true
	}
	return unicode.In(c, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) &&
		!unicode.In(c, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

// ---- atoms ----

// atom is the translation of one ECMAScript atom: a single RE2 atom.
type atom struct {
	text string
	unit rune // the literal character, or -1 when the atom is not a literal
}

func (p *parser) parseAtom(st state) atom {
	c := p.src[p.pos]
	switch c {
	case '.':
		p.pos++
		set := lineTerminators.complement(p.universe)
		if st.dotAll {
			set = runeSet{{0, p.universe}}
		}
		return atom{text: emitSet(p.goSet(set)), unit: -1}
	case '[':
		if p.vMode {
			return atom{text: p.parseClassV(st), unit: -1}
		}
		return atom{text: p.parseClass(st), unit: -1}
	case '\\':
		return p.parseAtomEscape(st)
	}
	p.pos++
	return p.charAtom(c, st)
}

// charAtom matches the literal character c.
func (p *parser) charAtom(c rune, st state) atom {
	if !p.uMode && isSurrogate(c) {
		return atom{unit: c} // see surrogateTerm
	}
	if st.ignoreCase {
		if m := p.fold.members(c); m != nil {
			rs := make([]rng, len(m))
			for i, r := range m {
				rs[i] = rng{r, r}
			}
			return atom{text: emitSet(p.goSet(makeSet(rs))), unit: c}
		}
	}
	if p.uMode && isSurrogate(c) {
		// A lone surrogate never occurs in valid UTF-8 text.
		return atom{text: emitSet(nil), unit: c}
	}
	return atom{text: literal(c), unit: c}
}

// setAtom matches one character of set (before case folding).
func (p *parser) setAtom(set runeSet, st state) atom {
	if st.ignoreCase {
		set = p.fold.closure(set)
	}
	return atom{text: emitSet(p.goSet(set)), unit: -1}
}

// goSet turns a set of ECMAScript characters into the code points RE2
// matches. With u or v it drops surrogates, which valid UTF-8 never holds.
// Without them the set holds UTF-16 code units: a set holding every
// surrogate (as . and negated classes do) also matches every supplementary
// character, whose two surrogates it would match one by one; a set holding
// only some surrogates cannot be expressed and is refused.
func (p *parser) goSet(t runeSet) runeSet {
	sur := intersect(t, surrogateSet)
	if len(sur) == 0 {
		return t
	}
	rest := subtract(t, surrogateSet)
	if p.uMode {
		return rest
	}
	if sur.equal(surrogateSet) {
		return union(rest, astralSet)
	}
	p.refuse("a surrogate code unit in a character class without the u or v flag")
	return rest
}

// parseAtomEscape parses an AtomEscape after its backslash.
func (p *parser) parseAtomEscape(st state) atom {
	p.pos++ // '\'
	if p.eof() {
		p.fail(`\ at end of pattern`)
	}
	c := p.src[p.pos]
	switch {
	case c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W':
		p.pos++
		return p.setAtom(p.classEscapeSet(c, st), st)
	case (c == 'p' || c == 'P') && p.uMode:
		p.pos++
		item, _ := p.propertyEscape(c == 'P', st)
		if item.native != "" && !st.ignoreCase {
			return atom{text: item.native, unit: -1}
		}
		return p.classAtom([]classItem{item}, false, st)
	case c >= '1' && c <= '9':
		start := p.pos
		n := 0
		for isDigit(p.at(p.pos)) {
			if n < math.MaxInt32/10 {
				n = n*10 + int(p.at(p.pos)-'0')
			} else {
				n = math.MaxInt32
			}
			p.pos++
		}
		if n <= p.groupCount {
			p.refuse(`backreference \` + string(p.src[start:p.pos]))
			return atom{text: "(?:)", unit: -1}
		}
		if p.uMode {
			p.fail("Invalid escape")
		}
		// Annex B: not a backreference, so a legacy octal or identity escape.
		p.pos = start
		if c >= '8' {
			p.pos++
			return p.charAtom(c, st)
		}
		return p.charAtom(p.legacyOctal(), st)
	case c == 'k' && p.nMode:
		p.pos++
		if !p.peekIs('<') {
			p.fail("Invalid named reference")
		}
		p.pos++
		name := p.parseGroupName()
		p.namedRefs = append(p.namedRefs, name)
		p.refuse(`named backreference \k<` + name + `>`)
		return atom{text: "(?:)", unit: -1}
	}
	v, ok := p.characterEscape(false)
	if !ok {
		// Annex B: \c without a control letter is a literal backslash.
		return p.charAtom('\\', st)
	}
	return p.charAtom(v, st)
}

// characterEscape parses a CharacterEscape (or, in a class, the character
// forms of ClassEscape) at p.pos, just after the backslash. It returns ok
// false, consuming nothing, for a \c that Annex B reads as a backslash.
func (p *parser) characterEscape(inClass bool) (rune, bool) {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 't':
		return '\t', true
	case 'n':
		return '\n', true
	case 'v':
		return '\v', true
	case 'f':
		return '\f', true
	case 'r':
		return '\r', true
	case 'c':
		n := p.at(p.pos)
		if isLetter(n) || !p.uMode && inClass && (isDigit(n) || n == '_') {
			p.pos++
			return n % 32, true
		}
		if p.uMode {
			p.fail("Invalid unicode escape")
		}
		p.pos--
		return 0, false
	case '0':
		if !isDigit(p.at(p.pos)) {
			return 0, true
		}
		if p.uMode {
			p.fail("Invalid decimal escape")
		}
		p.pos--
		return p.legacyOctal(), true
	case 'x':
		if h1, h2 := hexVal(p.at(p.pos)), hexVal(p.at(p.pos+1)); h1 >= 0 && h2 >= 0 {
			p.pos += 2
			return rune(h1<<4 | h2), true
		}
		if p.uMode {
			p.fail("Invalid escape")
		}
		p.refuse(`identity escape \x`)
		return 'x', true
	case 'u':
		if v, ok := p.unicodeEscape(p.uMode); ok {
			return v, true
		}
		if p.uMode {
			p.fail("Invalid Unicode escape")
		}
		p.refuse(`identity escape \u`)
		return 'u', true
	}
	if p.uMode {
		if isSyntaxChar(c) || c == '/' || inClass && c == '-' {
			return c, true
		}
		p.fail("Invalid escape")
	}
	// Annex B IdentityEscape: any character but c, and k when the pattern
	// has group names.
	switch {
	case isDigit(c): // \8 and \9 in a class; other digits handled by callers
		return c, true
	case c == 'k' && p.nMode:
		p.fail("Invalid escape")
	case isLetter(c):
		p.refuse(`identity escape \` + string(c))
	}
	return c, true
}

// unicodeEscape parses the RegExpUnicodeEscapeSequence after "\u": \uXXXX,
// and with unicodeMode a surrogate pair \uXXXX\uXXXX or \u{X…}. It consumes
// nothing and returns false when there is none.
func (p *parser) unicodeEscape(unicodeMode bool) (rune, bool) {
	start := p.pos
	if unicodeMode && p.peekIs('{') {
		p.pos++
		v := 0
		digits := 0
		for hexVal(p.at(p.pos)) >= 0 {
			v = v<<4 | hexVal(p.at(p.pos))
			if v > maxCodePoint {
				p.pos = start
				return 0, false
			}
			digits++
			p.pos++
		}
		if digits == 0 || !p.peekIs('}') {
			p.pos = start
			return 0, false
		}
		p.pos++
		return rune(v), true
	}
	v, ok := p.hex4(p.pos)
	if !ok {
		return 0, false
	}
	p.pos += 4
	if unicodeMode && isHigh(v) && p.hasPrefix(`\u`) {
		if w, ok := p.hex4(p.pos + 2); ok && isLow(w) {
			p.pos += 6
			return utf16.DecodeRune(v, w), true
		}
	}
	return v, true
}

func (p *parser) hex4(i int) (rune, bool) {
	v := 0
	for k := i; k < i+4; k++ {
		h := hexVal(p.at(k))
		if h < 0 {
			return 0, false
		}
		v = v<<4 | h
	}
	return rune(v), true
}

// legacyOctal parses Annex B LegacyOctalEscapeSequence at p.pos.
func (p *parser) legacyOctal() rune {
	d := p.src[p.pos] - '0'
	p.pos++
	if !isOctal(p.at(p.pos)) {
		return d
	}
	v := d*8 + p.src[p.pos] - '0'
	p.pos++
	if d <= 3 && isOctal(p.at(p.pos)) {
		v = v*8 + p.src[p.pos] - '0'
		p.pos++
	}
	return v
}

// classEscapeSet returns the set of \d \D \s \S \w \W (before case folding).
func (p *parser) classEscapeSet(c rune, st state) runeSet {
	switch c {
	case 'd':
		return digitSet
	case 'D':
		return digitSet.complement(p.universe)
	case 's':
		return spaceSet
	case 'S':
		return spaceSet.complement(p.universe)
	case 'w':
		return p.wordChars(st)
	}
	return p.wordChars(st).complement(p.universe)
}

// wordChars is WordCharacters (ES2024 §22.2.2.9.4): with u or v and i it
// adds the characters that fold to ASCII word characters (U+017F, U+212A).
func (p *parser) wordChars(st state) runeSet {
	if st.ignoreCase && p.uMode {
		return p.fold.closure(wordSet)
	}
	return wordSet
}

// propertyEscape parses {…} after \p or \P (u or v only). mayStrings reports a
// property of strings.
func (p *parser) propertyEscape(negated bool, st state) (item classItem, mayStrings bool) {
	start := p.pos - 2
	if !p.peekIs('{') {
		p.fail("Invalid property name")
	}
	p.pos++
	bodyStart := p.pos
	eq := false
	for {
		c := p.at(p.pos)
		switch {
		case isAlnum(c) || c == '_':
			p.pos++
			continue
		case c == '=' && !eq:
			eq = true
			p.pos++
			continue
		case c == '}':
		default:
			p.fail("Invalid property name")
		}
		break
	}
	body := string(p.src[bodyStart:p.pos])
	p.pos++
	text := string(p.src[start:p.pos])
	kind, name, set := resolveProperty(body, p.vMode)
	switch kind {
	case propInvalid:
		p.fail("Invalid property name")
	case propStrings:
		if negated {
			p.fail("Invalid property name")
		}
		p.refuse("unknown Unicode property " + text)
		return classItem{}, true
	case propUnknown:
		p.refuse("unknown Unicode property " + text)
		return classItem{}, false
	}
	if !negated {
		return classItem{set: set, native: nativeProperty(name, set)}, false
	}
	if p.vMode && st.ignoreCase {
		// Under v, \P complements the case-folded set (ES2024 §22.2.2.9).
		closed := p.fold.closure(set)
		item := classItem{set: closed.complement(maxCodePoint)}
		if n := nativeProperty(name, set); n != "" {
			var b strings.Builder
			b.WriteString(n)
			writeRanges(&b, subtract(closed, set))
			item.negNative = b.String()
		}
		return item, false
	}
	native := ""
	if n := nativeProperty(name, set); n != "" {
		native = `\P` + n[2:]
	}
	return classItem{set: set.complement(maxCodePoint), native: native}, false
}

// ---- character classes ----

// classItem is one member of a character class: a set of characters, and
// for a Unicode property escape RE2 knows, its RE2 class item.
type classItem struct {
	set       runeSet
	native    string // RE2 class item matching exactly set
	negNative string // RE2 class items matching exactly the complement of set
}

// classAtom translates a class: the union of items, complemented when
// negated, matched ignoring case per st.
func (p *parser) classAtom(items []classItem, negated bool, st state) atom {
	var all []rng
	hasNative := false
	for _, it := range items {
		all = append(all, it.set...)
		hasNative = hasNative || it.native != ""
	}
	if len(items) == 1 && items[0].negNative != "" {
		// A single \P{…} under v and i: its set is closed under case folding.
		if negated {
			return atom{text: "[" + items[0].negNative + "]", unit: -1}
		}
		return atom{text: "[^" + items[0].negNative + "]", unit: -1}
	}
	s := makeSet(all)
	t := s
	if st.ignoreCase {
		t = p.fold.closure(s)
	}
	if !hasNative {
		if negated {
			t = t.complement(p.universe)
		}
		return atom{text: emitSet(p.goSet(t)), unit: -1}
	}
	// Keep RE2's \p{…} names rather than expanding large tables. Only u and v
	// patterns have property escapes, so surrogates do not matter.
	var b strings.Builder
	b.WriteByte('[')
	if negated {
		b.WriteByte('^')
	}
	for _, it := range items {
		if it.native != "" {
			b.WriteString(it.native)
		} else {
			writeRanges(&b, it.set)
		}
	}
	writeRanges(&b, subtract(t, s)) // characters case folding adds
	b.WriteByte(']')
	return atom{text: b.String(), unit: -1}
}

// classRangeAtom is one ClassAtom: a character or, for a class escape, a set.
type classRangeAtom struct {
	char  rune
	isSet bool
	item  classItem
}

// parseClass parses a CharacterClass without the v flag.
func (p *parser) parseClass(st state) string {
	p.pos++ // '['
	negated := false
	if p.peekIs('^') {
		negated = true
		p.pos++
	}
	var items []classItem
	for {
		if p.eof() {
			p.fail("Unterminated character class")
		}
		if p.peekIs(']') {
			p.pos++
			break
		}
		a := p.parseClassAtom(st)
		if p.peekIs('-') && p.at(p.pos+1) != ']' && p.at(p.pos+1) != -1 {
			p.pos++
			b := p.parseClassAtom(st)
			if a.isSet || b.isSet {
				if p.uMode {
					p.fail("Invalid character class")
				}
				// Annex B: [\d-z] is \d, '-' and 'z'.
				items = append(items, a.item, classItem{set: single('-')}, b.item)
				continue
			}
			if a.char > b.char {
				p.fail("Range out of order in character class")
			}
			items = append(items, classItem{set: runeSet{{a.char, b.char}}})
			continue
		}
		items = append(items, a.item)
	}
	if len(items) == 0 {
		if negated {
			return emitSet(fullSet) // [^] matches any character
		}
		return emitSet(nil) // [] matches nothing
	}
	return p.classAtom(items, negated, st).text
}

// parseClassAtom parses a ClassAtom without the v flag.
func (p *parser) parseClassAtom(st state) classRangeAtom {
	if p.eof() {
		p.fail("Unterminated character class")
	}
	c := p.src[p.pos]
	if c != '\\' {
		p.pos++
		return classChar(c)
	}
	p.pos++
	if p.eof() {
		p.fail(`\ at end of pattern`)
	}
	c = p.src[p.pos]
	switch {
	case c == 'b':
		p.pos++
		return classChar('\b')
	case c == '-' && p.uMode:
		p.pos++
		return classChar('-')
	case c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W':
		p.pos++
		return classRangeAtom{isSet: true, item: classItem{set: p.classEscapeSet(c, st)}}
	case (c == 'p' || c == 'P') && p.uMode:
		p.pos++
		item, _ := p.propertyEscape(c == 'P', st)
		return classRangeAtom{isSet: true, item: item}
	case isDigit(c) && c != '0':
		if p.uMode {
			p.fail("Invalid class escape")
		}
		if c >= '8' {
			p.pos++
			return classChar(c)
		}
		return classChar(p.legacyOctal())
	}
	v, ok := p.characterEscape(true)
	if !ok {
		return classChar('\\')
	}
	return classChar(v)
}

func classChar(c rune) classRangeAtom {
	return classRangeAtom{char: c, item: classItem{set: single(c)}}
}

// ---- v-mode classes ----

// vClass is the result of parsing ClassContents under v.
type vClass struct {
	items      []classItem
	mayStrings bool
}

// parseClassV parses a CharacterClass under the v flag. Class set operations
// (&&, --, nested classes) and \q{…} are validated, then refused.
func (p *parser) parseClassV(st state) string {
	negated, c := p.classV(st)
	if len(c.items) == 0 && p.unsupported == "" {
		if negated {
			return emitSet(fullSet)
		}
		return emitSet(nil)
	}
	return p.classAtom(c.items, negated, st).text
}

// classV parses "[" ClassContents "]" under v.
func (p *parser) classV(st state) (negated bool, c vClass) {
	p.pos++ // '['
	if p.peekIs('^') {
		negated = true
		p.pos++
	}
	c = p.classSetExpression(st)
	if !p.peekIs(']') {
		if p.eof() {
			p.fail("Unterminated character class")
		}
		p.fail("Invalid set operation in character class")
	}
	p.pos++
	if negated && c.mayStrings {
		p.fail("Negated character class may contain strings")
	}
	return negated, c
}

// classSetExpression parses ClassUnion, ClassIntersection or ClassSubtraction.
func (p *parser) classSetExpression(st state) vClass {
	var c vClass
	if p.peekIs(']') {
		return c
	}
	first, isRange := p.classSetOperand(st, true)
	c.items = append(c.items, first.items...)
	c.mayStrings = first.mayStrings
	if op := p.setOperator(); op != "" {
		if isRange {
			p.fail("Invalid set operation in character class")
		}
		for p.hasPrefix(op) {
			p.pos += 2
			if op == "&&" && p.peekIs('&') {
				p.fail("Invalid character in character class")
			}
			operand, _ := p.classSetOperand(st, false)
			if op == "&&" {
				c.mayStrings = c.mayStrings && operand.mayStrings
			}
			p.refuse("class set operation under the v flag")
		}
		if !p.peekIs(']') {
			p.fail("Invalid set operation in character class")
		}
		return c
	}
	for !p.eof() && !p.peekIs(']') {
		if p.setOperator() != "" {
			p.fail("Invalid set operation in character class")
		}
		operand, _ := p.classSetOperand(st, true)
		c.items = append(c.items, operand.items...)
		c.mayStrings = c.mayStrings || operand.mayStrings
	}
	return c
}

func (p *parser) setOperator() string {
	switch {
	case p.hasPrefix("&&"):
		return "&&"
	case p.hasPrefix("--"):
		return "--"
	}
	return ""
}

// classSetOperand parses a NestedClass, ClassStringDisjunction,
// ClassSetCharacter or (when allowRange) ClassSetRange.
func (p *parser) classSetOperand(st state, allowRange bool) (c vClass, isRange bool) {
	if p.eof() {
		p.fail("Unterminated character class")
	}
	switch {
	case p.peekIs('['):
		_, nested := p.classV(st)
		p.refuse("class set operation under the v flag")
		return vClass{mayStrings: nested.mayStrings}, false
	case p.hasPrefix(`\q{`):
		p.pos += 3
		mayStrings := false
		for {
			n := 0
			for !p.eof() && !p.peekIs('|') && !p.peekIs('}') {
				p.classSetCharacter()
				n++
			}
			if n != 1 {
				mayStrings = true
			}
			if p.eof() {
				p.fail("Unterminated character class")
			}
			p.pos++
			if p.src[p.pos-1] == '}' {
				break
			}
		}
		p.refuse(`\q{...} under the v flag`)
		return vClass{mayStrings: mayStrings}, false
	case p.peekIs('\\'):
		switch e := p.at(p.pos + 1); e {
		case 'd', 'D', 's', 'S', 'w', 'W':
			p.pos += 2
			return vClass{items: []classItem{{set: p.classEscapeSet(e, st)}}}, false
		case 'p', 'P':
			p.pos += 2
			item, mayStrings := p.propertyEscape(e == 'P', st)
			return vClass{items: []classItem{item}, mayStrings: mayStrings}, false
		}
	}
	lo := p.classSetCharacter()
	if allowRange && p.peekIs('-') && !p.hasPrefix("--") {
		p.pos++
		hi := p.classSetCharacter()
		if lo > hi {
			p.fail("Range out of order in character class")
		}
		return vClass{items: []classItem{{set: runeSet{{lo, hi}}}}}, true
	}
	return vClass{items: []classItem{{set: single(lo)}}}, false
}

// classSetCharacter parses a ClassSetCharacter.
func (p *parser) classSetCharacter() rune {
	if p.eof() {
		p.fail("Unterminated character class")
	}
	c := p.src[p.pos]
	if c == '\\' {
		p.pos++
		if p.eof() {
			p.fail(`\ at end of pattern`)
		}
		e := p.src[p.pos]
		switch {
		case e == 'b':
			p.pos++
			return '\b'
		case strings.ContainsRune("&-!#%,:;<=>@`~", e):
			p.pos++
			return e
		}
		v, _ := p.characterEscape(false) // under v, \c without a letter fails
		return v
	}
	if strings.ContainsRune("()[]{}/-|", c) {
		p.fail("Invalid character in character class")
	}
	if strings.ContainsRune("&!#$%*+,.:;<=>?@^`~", c) && p.at(p.pos+1) == c {
		p.fail("Invalid set operation in character class")
	}
	p.pos++
	return c
}
