// Package esregexp translates ECMAScript regular expressions, the dialect of
// TextPattern.regexp (protocol §5.6), into Go's RE2 syntax, as §10.4 and
// decision D34 require: a pattern is translated where both dialects agree on
// the normalized subject text matchesText uses (§10.3: no line terminator,
// no whitespace but U+0020), refused with an *UnsupportedError where RE2
// cannot evaluate it, and rejected with a *SyntaxError when it is not a valid
// ECMAScript pattern. Flags outside §5.6 give a *FlagsError. A wrong match is
// worse than a clear refusal.
//
// The translator is a recursive-descent parser of the ES2024 Pattern grammar
// (§22.2.1), with the Annex B grammar (legacy octal escapes, identity
// escapes, literal braces and brackets, \c without a control letter) when
// neither u nor v is set, and the v flag's class syntax. It parses the whole
// pattern before answering: a syntax error anywhere wins over a refusal.
// The applied regexp answers RegExp.prototype.test from position 0 (lastIndex
// reset).
//
// # Translation
//
// Flags: m becomes (?m); s, and modifier groups (?ims-ims:…) (ES2025), are
// applied per atom; g and d change nothing; y anchors the pattern as
// \A(?:…); u and v select the Unicode grammar and code point matching. The
// i flag is compiled into explicit character sets with ECMAScript's
// Canonicalize rather than RE2's (?i), whose simple-fold orbits differ:
// without u or v, ECMAScript folds with toUpperCase and never maps a
// non-ASCII character to an ASCII one, so /s/i does not match "ſ" and /k/i
// does not match the Kelvin sign; with u or v it uses simple case folding.
//
// Single-character matchers become RE2 classes holding exactly the
// ECMAScript set: . excludes \n, \r, U+2028 and U+2029 (without s); \s and
// \S use the ECMAScript white space and line terminator set (which includes
// U+00A0, U+FEFF, U+1680, U+2000–U+200A, U+202F, U+205F and U+3000, unlike
// RE2's ASCII \s); \w, \W, \d and \D are ASCII, with U+017F and U+212A in \w
// under i with u or v; [^] matches any character and [] none. Escapes
// (\uXXXX, \u{…}, surrogate pairs, \xHH, \cX, \0, legacy octal) become
// literal code points. \p{…} and \P{…} (u and v) accept General_Category
// values and aliases, Script values (short and long names), and Any, ASCII
// and Assigned, as RE2's \p{…} when Go's parser reads the name as the same
// set, otherwise as explicit ranges. Named groups (?<name>…) become
// (?P<name>…), or plain groups when RE2 cannot spell the name; names do not
// affect matching.
//
// # Refused constructs
//
// The UnsupportedError's Construct names the first of: lookahead (?= (?!,
// lookbehind (?<= (?<!, backreferences \1… and \k<name>, class set
// operations (&&, --, nested classes) and \q{…} under v, Unicode properties
// RE2 lacks (binary properties other than Any, ASCII and Assigned,
// Script_Extensions, the Unknown script, scripts newer than Go's Unicode
// tables, properties of strings), repetition counts above 1000, and, without
// u or v, identity escapes of ASCII letters (\a, \e, \z, \A, \Q, \p, \k, \u
// and \x without their digits, …), whose meaning differs between dialects.
// Patterns whose translation exceeds RE2's limits (nested repetition counts
// multiplying past 1000, program size, capture nesting deeper than 1000) are
// refused too.
//
// # Deviations
//
// The translation agrees with ECMAScript on every normalized subject except
// in these documented cases:
//
//   - Without u or v, ECMAScript matches UTF-16 code units and RE2 matches
//     code points. On subjects without supplementary-plane characters the
//     two agree. Where such a character occurs, ., negated classes, \D, \S
//     and \W consume all of it where ECMAScript consumes one surrogate, so a
//     counted or anchored pattern can differ (/^.$/ matches "😀" here, not in
//     ECMAScript). Patterns that name surrogates themselves are refused
//     instead: a lone surrogate escape, a class holding some but not all
//     surrogates (including a supplementary character written in a class),
//     and a quantifier after a supplementary character.
//   - \b and \B are RE2's ASCII assertions. Under i with u or v, ECMAScript
//     also counts U+017F and U+212A as word characters there.
//   - Under m, RE2's ^ and $ know only \n as a line terminator; ECMAScript
//     also recognizes \r, U+2028 and U+2029. Normalized subjects hold none.
//   - Unicode data is Go's (package unicode, Unicode 15.0) for \p sets and
//     case folding, plus the three simple case foldings Unicode 15.1 added
//     (U+0390/U+1FD3, U+03B0/U+1FE3, U+FB05/U+FB06). A JavaScript engine
//     with newer data can match characters assigned since differently.
//     Property names follow Node.js 20: a name it accepts is never a syntax
//     error here, only refused when Go lacks it.
//   - Counts in braced quantifiers saturate at 2^31−1 as in V8, so {n,m}
//     with m < n but both above 2^31−1 is refused as a count above 1000
//     rather than reported as out of order.
//
// Legacy forms are translated exactly: without u or v, \8 and \9 are
// identity escapes, \1–\7 name a group when one exists (then refused) and
// are octal escapes otherwise, and \c not followed by a control letter is a
// backslash. Duplicate group names are a syntax error, as in Node.js 20.
//
// The tests replay tables computed with Node.js 20 (testdata/gen_golden.mjs
// writes them); Node is not needed to run them.
package esregexp
