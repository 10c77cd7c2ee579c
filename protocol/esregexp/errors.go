package esregexp

import "fmt"

// UnsupportedError reports a valid ECMAScript pattern that this translator,
// or RE2, cannot evaluate with ECMAScript semantics: lookaround,
// backreferences, class set operations of the v flag, Unicode properties RE2
// lacks, repetition counts above 1000, identity escapes of letters, and the
// other constructs listed in the package documentation. The protocol answers
// it with UNSUPPORTED_CAPABILITY. Compile and Translate return it as
// *UnsupportedError.
type UnsupportedError struct {
	Source    string // the ECMAScript pattern
	Flags     string // its flags
	Construct string // what cannot be evaluated, e.g. "lookahead (?=" or "backreference \\1"
}

// Error returns "regular expression /<source>/<flags> uses <construct>, which
// this engine cannot evaluate", the message §10.4 of the protocol prescribes.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("regular expression /%s/%s uses %s, which this engine cannot evaluate",
		e.Source, e.Flags, e.Construct)
}

// SyntaxError reports a source that is not a valid ECMAScript pattern under
// its flags (ES2024 §22.2.1 with the Annex B grammar when neither u nor v is
// set): a JavaScript engine would throw a SyntaxError from new RegExp. The
// protocol answers it with the e2e error INVALID_ARGUMENT. Compile and
// Translate return it as *SyntaxError.
type SyntaxError struct {
	Source string // the ECMAScript pattern
	Flags  string // its flags
	Reason string // what is wrong, e.g. "Nothing to repeat"
}

// Error returns "invalid regular expression /<source>/<flags>: <reason>".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid regular expression /%s/%s: %s", e.Source, e.Flags, e.Reason)
}

// FlagsError reports a flags string that ValidFlags rejects. The protocol
// answers it with -32602 (invalid params). Compile and Translate return it as
// *FlagsError.
type FlagsError struct {
	Flags string // the rejected flags
}

// Error names the flags and the rule they break.
func (e *FlagsError) Error() string {
	return fmt.Sprintf("invalid regular expression flags %q: flags must be a subsequence of \"dgimsuvy\" in that order, without duplicates and never both u and v", e.Flags)
}

// ValidFlags reports whether flags is a subsequence of "dgimsuvy" in that
// order, without duplicates, never holding both u and v (§5.6, D56).
func ValidFlags(flags string) bool {
	const order = "dgimsuvy"
	i := 0
	for k := 0; k < len(flags); k++ {
		for i < len(order) && order[i] != flags[k] {
			i++
		}
		if i == len(order) {
			return false
		}
		i++
	}
	return !(containsByte(flags, 'u') && containsByte(flags, 'v'))
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
