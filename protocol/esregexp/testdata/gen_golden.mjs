// gen_golden.mjs computes the ECMAScript expectations the esregexp tests
// read, with the JavaScript engine running it (Node.js 20: V8 11.3):
//
//   node protocol/esregexp/testdata/gen_golden.mjs
//
// It writes, next to itself:
//   golden.json   match cases (new RegExp(source, flags).test(subject) with
//                 lastIndex 0), refused patterns (which must be valid
//                 ECMAScript) and syntax errors (which must throw);
//   casefold.json the case-insensitive equivalence classes of Canonicalize,
//                 without and with the u flag;
//   scripts.json  the Script property values \p{sc=…} accepts, grouped by
//                 script;
//   random.json   a seeded random differential corpus.
// It exits non-zero when a table contradicts the engine. The Go tests never
// run node; they only read these files.

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let failures = 0;
function problem(msg) {
  console.error('gen_golden: ' + msg);
  failures++;
}

function esTest(source, flags, subject) {
  const re = new RegExp(source, flags);
  re.lastIndex = 0;
  return re.test(subject);
}

function compiles(source, flags) {
  try {
    new RegExp(source, flags);
    return { ok: true };
  } catch (e) {
    return { ok: false, message: e.message };
  }
}

// ---- match cases: [source, flags, subject, options] ----
// options.equiv: [source, flags] node evaluates instead, for ES2025 syntax
//   (modifier groups) Node.js 20 predates.
// options.deviation: a documented deviation; the Go translation is expected
//   to give the opposite of the ECMAScript result.
const A1000 = 'a'.repeat(1000);
const match = [
  // literals and the empty pattern
  ['abc', '', 'xabcx'],
  ['abc', '', 'ab c'],
  ['', '', ''],
  ['', '', 'anything'],
  ['a b', '', 'a b'],
  ['café', '', 'un café'],
  ['日本', '', 'ようこそ日本へ'],
  ['😀', '', 'smile 😀'],
  ['😀', 'u', 'smile 😀'],
  ['😀', '', 'smile 😁'],
  // flag i
  ['HELLO', 'i', 'say hello world'],
  ['hello', 'i', 'HELLO'],
  ['hello', '', 'HELLO'],
  ['Straße', 'i', 'STRASSE'],
  ['straße', 'i', 'STRAẞE'],
  ['straße', 'iu', 'STRAẞE'],
  ['É', 'i', 'é'],
  ['é', 'iu', 'É'],
  ['привет', 'i', 'ПРИВЕТ'],
  ['σ', 'i', 'Σ'],
  ['ς', 'i', 'Σ'],
  ['ς', 'iu', 'σ'],
  ['s', 'i', 'ſ'],
  ['s', 'iu', 'ſ'],
  ['k', 'i', '\u212A'],
  ['k', 'iu', '\u212A'],
  ['\u212A', 'i', 'K'],
  ['\u00E5', 'i', '\u212B'],
  ['\u00E5', 'iu', '\u212B'],
  ['i', 'i', 'İ'],
  ['ı', 'i', 'I'],
  ['ı', 'iu', 'I'],
  ['ǅ', 'i', 'ǆ'],
  ['ǅ', 'i', 'Ǆ'],
  ['\u1F80', 'i', '\u1F88'],
  ['\u1F80', 'iu', '\u1F88'],
  ['\u0390', 'iu', '\u1FD3'],
  ['\u0390', 'i', '\u1FD3'],
  ['ﬀ', 'i', 'FF'],
  ['\u0345', 'i', 'ι'],
  ['\u0345', 'iu', 'Ι'],
  ['\\u{10428}', 'iu', '\u{10400}'],
  ['𐐨', 'i', '𐐀'],
  ['[a-z]+', 'i', 'ABC'],
  ['^[^a-z]$', 'i', 'A'],
  ['[A-Z]', 'i', 'ſ'],
  ['[A-Z]', 'iu', 'ſ'],
  ['[\\u017F]', 'i', 's'],
  ['[\\u017F]', 'iu', 'S'],
  ['\\w', 'i', 'ſ'],
  ['\\w', 'iu', 'ſ'],
  ['\\W', 'i', 'ſ'],
  ['\\W', 'iu', 'ſ'],
  ['[^\\W]', 'iu', '\u212A'],
  ['\\u00e9', 'i', 'É'],
  // flag y
  ['a', 'y', 'ab'],
  ['b', 'y', 'ab'],
  ['a|b', 'y', 'ba'],
  ['b+', 'y', 'bbx'],
  ['x', 'gy', 'ax'],
  // flags g, d, m, s
  ['a', 'g', 'a'],
  ['a', 'dg', 'ba'],
  ['^b$', 'm', 'b'],
  ['^a b$', 'm', 'a b'],
  ['^b', 'm', 'a b'],
  ['a.c', 's', 'a c'],
  ['a.c', 's', 'a\nc'],
  ['a.c', '', 'a\nc'],
  // \u00e9 and friends
  ['caf\\u00e9', '', 'café'],
  ['caf\\u00e9', '', 'cafe\u0301'],
  ['\\u0041', '', 'A'],
  ['\\x41\\x42', '', 'AB'],
  ['\\u{1F600}', 'u', '😀'],
  ['^\\u{1F600}$', 'u', '😀'],
  ['\\u{61}', 'u', 'a'],
  ['\\u{0000000061}', 'u', 'a'],
  ['\\uD83D\\uDE00', 'u', '😀'],
  ['\\uD83D\\uDE00', '', '😀'],
  ['^\\uD83D\\uDE00$', '', '😀'],
  ['[\\uD83D\\uDE00]', 'u', '😀'],
  ['\\uD83D', 'u', '😀'],
  ['^.$', 'u', '😀'],
  ['^[^a]$', 'u', '😀'],
  ['.', '', '😀'],
  ['[^a]', '', '😀'],
  ['^\\S+$', '', '😀'],
  ['[\\u0000-\\uFFFF]', '', '😀'],
  ['^[^\\uD800-\\uDFFF]$', '', '😀'],
  ['[^\\uD800-\\uDFFF]', '', '😀'],
  // named groups
  ['(?<year>\\d{4})-(?<month>\\d\\d)', '', 'on 2024-05-01'],
  ['(?<year>\\d{4})-(?<month>\\d\\d)', '', 'on 2024-5-01'],
  ['(?<$ünï>x)+', '', 'xx'],
  ['(?<\\u{1d49c}>x)', '', 'x'],
  ['(?<𝒜>x)y', 'u', 'xy'],
  // [^] and []
  ['^[^]$', '', 'x'],
  ['^[^]$', '', '\n'],
  ['[^]', '', ''],
  ['[]', '', 'abc'],
  ['a[]?b', '', 'ab'],
  ['a|[]', '', 'a'],
  ['^[^]*$', 'u', 'anything 😀'],
  // \s and \S
  ['\\s', '', '\u00A0'],
  ['\\s', '', '\uFEFF'],
  ['\\s', '', '\u3000'],
  ['\\s', '', '\u2028'],
  ['\\s', '', '\u180E'],
  ['\\s', '', '\u200B'],
  ['\\s', '', '\u0085'],
  ['^\\S$', '', '\u00A0'],
  ['[\\s]', '', '\u1680'],
  ['[^\\s]', '', '\u202F'],
  ['a\\sb', '', 'a b'],
  ['\\S+', 'u', '\u3000x'],
  // . and line terminators
  ['.', '', '\u2028'],
  ['.', '', '\u2029'],
  ['.', '', '\r'],
  ['.', '', '\u0085'],
  ['.', 's', '\u2028'],
  ['^.$', 'u', '\u2029'],
  // classes and ranges
  ['[a-f0-9]+', '', 'deadbeef'],
  ['^[a-f]+$', '', 'abcg'],
  ['[\\u00e0-\\u00ff]', '', 'é'],
  ['[-a]', '', '-'],
  ['[a-]', '', '-'],
  ['[\\d-z]', '', '-'],
  ['[\\d-z]', '', 'y'],
  ['[a-\\d]', '', '-'],
  ['[\\w-]+$', '', 'foo-bar'],
  ['[--a]', '', '0'],
  ['[\\]]', '', ']'],
  ['[\\\\]', '', '\\'],
  ['[.]', '', 'a'],
  ['[$^]', '', '^'],
  ['[[]', '', '['],
  ['[^a]', 'i', 'A'],
  ['a[b-d]e', '', 'ace'],
  ['[\\b]', '', '\b'],
  ['[\\-]', 'u', '-'],
  ['[\\cJ]', '', '\n'],
  ['[\\c1]', '', '\x11'],
  ['[\\c_]', '', '\x1F'],
  ['[\\c*]', '', '\\'],
  ['[\\0]', '', '\0'],
  ['[\\101]', '', 'A'],
  ['[\\8]', '', '8'],
  ['[\\x41-\\x43]', '', 'B'],
  ['[\\u{1F600}-\\u{1F64F}]', 'u', '🙂'],
  // escapes
  ['\\t', '', '\t'],
  ['\\n', '', '\n'],
  ['\\v\\f\\r', '', '\v\f\r'],
  ['\\0', '', '\0'],
  ['\\/', '', '/'],
  ['\\/', 'u', '/'],
  ['a\\.b', '', 'a.b'],
  ['a\\.b', '', 'axb'],
  ['\\\\', '', '\\'],
  ['\\$\\^\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|', '', '$^*+?()[]{}|'],
  ['\\-\\@\\ ', '', '-@ '],
  ['\\é', '', 'é'],
  ['\\cJ', '', '\n'],
  ['\\cj', '', '\n'],
  ['\\c', '', '\\c'],
  ['\\c1', '', '\\c1'],
  ['\\101', '', 'A'],
  ['\\08', '', '\x008'],
  ['\\400', '', ' 0'],
  ['\\8', '', '8'],
  ['(a)\\2', '', 'a\x02'],
  ['(a)\\10', '', 'a\b'],
  ['(a)\\18', '', 'a\x018'],
  // Unicode properties
  ['\\p{L}', 'u', 'é'],
  ['\\p{L}', 'u', '1'],
  ['^\\p{L}+$', 'u', 'Ωmega'],
  ['\\p{Lu}', 'u', 'É'],
  ['\\p{Lu}', 'u', 'é'],
  ['\\p{Lu}', 'iu', 'é'],
  ['\\P{L}', 'u', '1'],
  ['\\p{Script=Greek}', 'u', 'α'],
  ['\\p{Script=Greek}', 'u', 'a'],
  ['\\p{sc=Grek}', 'u', 'Ω'],
  ['\\p{Script=Latin}', 'u', 'ß'],
  ['\\p{sc=Old_Italic}', 'u', '\u{10300}'],
  ['\\p{sc=Cyrillic}+', 'u', 'Москва'],
  ['\\p{General_Category=Nd}', 'u', '٣'],
  ['\\p{gc=Decimal_Number}', 'u', '7'],
  ['\\p{Nd}', 'u', 'x'],
  ['\\p{Letter}', 'u', 'ж'],
  ['\\p{digit}', 'u', '5'],
  ['\\p{Any}', 'u', '\0'],
  ['\\p{ASCII}', 'u', 'é'],
  ['\\p{ASCII}', 'u', '~'],
  ['\\p{Assigned}', 'u', '\u0378'],
  ['\\p{Cn}', 'u', '\u0378'],
  ['\\p{C}', 'u', '\u0378'],
  ['\\p{LC}', 'u', 'a'],
  ['\\p{Lt}', 'u', 'ǅ'],
  ['\\p{Zs}', 'u', '\u00A0'],
  ['\\P{Ll}', 'iu', 'a'],
  ['\\P{Ll}', 'iv', 'a'],
  ['\\P{Ll}', 'v', 'A'],
  ['[^\\P{Ll}]', 'iv', 'A'],
  ['[\\p{L}\\d]', 'v', '5'],
  ['[\\p{Lu}]', 'iv', 'a'],
  ['[\\p{Lu}\\p{Nd}]+', 'u', 'A1'],
  ['[^\\p{L}]', 'u', 'é'],
  ['\\p{L}', 'v', 'x'],
  ['[a-z]', 'v', 'q'],
  ['[\\&\\-\\!]', 'v', '!'],
  ['[^^]', 'v', 'a'],
  ['[\\(\\)]', 'v', ')'],
  // quantifiers
  ['a{2}', '', 'aa'],
  ['a{2}', '', 'a'],
  ['^a{2,3}$', '', 'aaaa'],
  ['^a{2,3}$', '', 'aaa'],
  ['a{2,}', '', 'aaaaa'],
  ['^a{0}$', '', ''],
  ['^a{1000}$', '', A1000],
  ['^a?$', '', ''],
  ['a+', '', ''],
  ['^(ab)*$', '', 'abab'],
  ['^(?:ab)+$', '', 'aba'],
  ['a{,2}', '', 'a{,2}'],
  ['a{1,2', '', 'a{1,2'],
  ['x{1}{', '', 'x{'],
  ['{', '', '{'],
  ['}', '', '}'],
  [']', '', ']'],
  ['a{ 2}', '', 'a{ 2}'],
  ['^(?:a|b)*c$', '', 'ababc'],
  ['^(a*)*$', '', 'aaa'],
  ['^(a|)+$', '', ''],
  // lazy quantifiers
  ['^a+?$', '', 'aaa'],
  ['a*?b', '', 'aab'],
  ['^a{2,3}?$', '', 'aaa'],
  ['<.+?>', '', 'x<a>y'],
  ['^a??$', '', 'a'],
  ['^a{2,}?b$', '', 'aab'],
  // alternation
  ['cat|dog', '', 'hotdog'],
  ['^(?:cat|dog)$', '', 'catdog'],
  ['a||b', '', ''],
  ['|', '', 'x'],
  ['(|a)b', '', 'b'],
  ['^(?:a|ab)c$', '', 'abc'],
  // anchors and boundaries
  ['^abc$', '', 'abc'],
  ['^abc$', '', 'abc '],
  ['c$', '', 'abc'],
  ['^$', '', ''],
  ['^', '', 'x'],
  ['a$', '', 'a\n'],
  ['\\bfoo\\b', '', 'a foo b'],
  ['\\bfoo\\b', '', 'afoob'],
  ['\\Boo', '', 'foo'],
  ['\\Bfoo', '', 'foo'],
  ['\\bé', '', 'é'],
  ['\\bé', 'u', ' é'],
  ['a\\b', 'i', 'aſ'],
  // groups
  ['(a)(b)(c)', '', 'abc'],
  ['((a)|b)+', '', 'bab'],
  ['(?:x(?:y(?:z)))', '', 'xyz'],
  // modifier groups (ES2025)
  ['(?i:a)b', '', 'Ab', { equiv: ['[aA]b', ''] }],
  ['(?i:a)b', '', 'AB', { equiv: ['[aA]b', ''] }],
  ['(?-i:a)b', 'i', 'aB', { equiv: ['a[bB]', ''] }],
  ['(?-i:a)b', 'i', 'AB', { equiv: ['a[bB]', ''] }],
  ['(?s:.)', '', '\n', { equiv: ['[^]', ''] }],
  ['(?-s:.)', 's', '\n', { equiv: ['.', ''] }],
  ['(?m:^b)', '', 'b', { equiv: ['^b', ''] }],
  ['(?i-s:a.)', 's', 'A\n', { equiv: ['[aA].', ''] }],
  ['(?i:\\w)', 'u', 'ſ', { equiv: ['\\w', 'iu'] }],
  // documented deviations: the translation gives the other result
  ['^.$', '', '😀', { deviation: 'without u or v, ECMAScript matches UTF-16 code units' }],
  ['^..$', '', '😀', { deviation: 'without u or v, ECMAScript matches UTF-16 code units' }],
  ['^[^a]$', '', '😀', { deviation: 'without u or v, ECMAScript matches UTF-16 code units' }],
  ['a\\b', 'iu', 'aſ', { deviation: '\\b stays ASCII under i with u or v' }],
  ['\\Bſ', 'iu', 'aſ', { deviation: '\\B stays ASCII under i with u or v' }],
  ['^b', 'm', 'a\rb', { deviation: 'under m, RE2 knows only \\n as a line terminator' }],
  ['a$', 'm', 'a\u2028b', { deviation: 'under m, RE2 knows only \\n as a line terminator' }],
];

// ---- refused: [source, flags, construct] (valid ECMAScript) ----
const unsupported = [
  ['(?=a)', '', 'lookahead (?='],
  ['x(?!a)', '', 'lookahead (?!'],
  ['(?=a)*a', '', 'lookahead (?='],
  ['(?<=a)b', '', 'lookbehind (?<='],
  ['(?<!a)b', 'u', 'lookbehind (?<!'],
  ['(a)\\1', '', 'backreference \\1'],
  ['(a)\\1', 'u', 'backreference \\1'],
  ['\\1(a)', '', 'backreference \\1'],
  ['(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10', '', 'backreference \\10'],
  ['(?<n>a)\\k<n>', '', 'named backreference \\k<n>'],
  ['\\k<n>(?<n>a)', 'u', 'named backreference \\k<n>'],
  ['[a&&b]', 'v', 'class set operation under the v flag'],
  ['[\\w--\\d]', 'v', 'class set operation under the v flag'],
  ['[[a-z]]', 'v', 'class set operation under the v flag'],
  ['[\\q{abc|d}]', 'v', '\\q{...} under the v flag'],
  ['\\p{Alphabetic}', 'u', 'unknown Unicode property \\p{Alphabetic}'],
  ['\\P{White_Space}', 'u', 'unknown Unicode property \\P{White_Space}'],
  ['\\p{scx=Latin}', 'u', 'unknown Unicode property \\p{scx=Latin}'],
  ['\\p{Script_Extensions=Grek}', 'v', 'unknown Unicode property \\p{Script_Extensions=Grek}'],
  ['\\p{sc=Zzzz}', 'u', 'unknown Unicode property \\p{sc=Zzzz}'],
  ['\\p{RGI_Emoji}', 'v', 'unknown Unicode property \\p{RGI_Emoji}'],
  ['[\\p{Emoji}a]', 'u', 'unknown Unicode property \\p{Emoji}'],
  ['a{1001}', '', 'repetition count above 1000'],
  ['a{0,1001}', 'u', 'repetition count above 1000'],
  ['a{1001,}', '', 'repetition count above 1000'],
  ['a{99999999999,}', '', 'repetition count above 1000'],
  ['(?:a{100}){100}', '', 'nested repetition counts above 1000 in total'],
  ['\\a', '', 'identity escape \\a'],
  ['\\e', '', 'identity escape \\e'],
  ['\\z', '', 'identity escape \\z'],
  ['\\Z', '', 'identity escape \\Z'],
  ['\\A', '', 'identity escape \\A'],
  ['\\Qa\\E', '', 'identity escape \\Q'],
  ['\\h', '', 'identity escape \\h'],
  ['\\H', '', 'identity escape \\H'],
  ['\\R', '', 'identity escape \\R'],
  ['\\X', '', 'identity escape \\X'],
  ['[\\a]', '', 'identity escape \\a'],
  ['[\\B]', '', 'identity escape \\B'],
  ['\\p{L}', '', 'identity escape \\p'],
  ['\\P{L}', 'i', 'identity escape \\P'],
  ['\\u{1F600}', '', 'identity escape \\u'],
  ['\\uZZ', '', 'identity escape \\u'],
  ['\\xZ', '', 'identity escape \\x'],
  ['\\k', '', 'identity escape \\k'],
  ['\\uD83D', '', 'lone surrogate \\uD83D without the u or v flag'],
  ['\\uDE00', '', 'lone surrogate \\uDE00 without the u or v flag'],
  ['😀+', '', 'a quantifier on half of a surrogate pair without the u or v flag'],
  ['[😀]', '', 'a surrogate code unit in a character class without the u or v flag'],
  ['[\\uDE00\\uDE4F]', '', 'a surrogate code unit in a character class without the u or v flag'],
  ['('.repeat(1001) + 'a' + ')'.repeat(1001), '', "nesting deeper than RE2's limit of 1000"],
];

// ---- syntax errors: [source, flags] (new RegExp throws) ----
const syntax = [
  ['(', ''], [')', ''], ['a)', ''], ['(?:a', ''], ['[', ''], ['[a', ''], ['[\\', ''],
  ['*a', ''], ['a**', ''], ['+', ''], ['?', ''], ['a|*', ''], ['a{2}*', ''], ['a*??', ''],
  ['{1}', ''], ['x|{1,2}', ''], ['a{2,1}', ''], ['a{2,1}', 'u'],
  ['(?x)', ''], ['(?)', ''], ['(?<a', ''], ['(?<>a)', ''], ['(?<1a>x)', ''], ['(?<a-b>x)', ''],
  ['(?<a>x)(?<a>y)', ''], ['(?<a>x)|(?<a>y)', ''],
  ['\\', ''], ['a\\', 'u'],
  ['^*', ''], ['$+', ''], ['\\b+', ''], ['\\B{2}', 'u'], ['(?<=a)*', ''], ['(?<!a)+', 'u'], ['(?=a)*', 'u'],
  ['[z-a]', ''], ['[\\u0062-a]', 'u'], ['[😂-😀]', ''],
  ['\\a', 'u'], ['\\-', 'u'], ['\\é', 'u'], ['[\\&]', 'u'], ['\\c1', 'u'], ['\\c', 'u'],
  ['\\x4', 'u'], ['\\u12', 'u'], ['\\u{110000}', 'u'], ['\\u{}', 'u'], ['\\u{12', 'u'],
  ['\\1', 'u'], ['(a)\\2', 'u'], ['\\00', 'u'], ['\\01', 'u'], ['[\\1]', 'u'], ['[\\d-z]', 'u'], ['[a-\\w]', 'u'],
  [']', 'u'], ['}', 'u'], ['{', 'u'], ['a{1,2', 'u'], ['a{,2}', 'u'],
  ['\\p{Foo}', 'u'], ['\\p{L', 'u'], ['\\pL', 'u'], ['\\p', 'u'], ['\\p{lu}', 'u'], ['\\p{Greek}', 'u'],
  ['\\p{Script=Foo}', 'u'], ['\\p{sc}', 'u'], ['\\p{Lu=Lu}', 'u'], ['\\p{gc=Greek}', 'u'], ['\\p{}', 'u'],
  ['\\p{Alphabetic=Y}', 'u'], ['\\p{RGI_Emoji}', 'u'], ['\\P{RGI_Emoji}', 'v'], ['[^\\p{RGI_Emoji}]', 'v'],
  ['[^\\q{ab}]', 'v'],
  ['(?<a>)\\k', ''], ['(?<a>x)\\k<b>', ''], ['\\k<a>', 'u'], ['\\k', 'u'], ['(?<a>x)[\\k]', ''],
  ['[(]', 'v'], ['[)]', 'v'], ['[{]', 'v'], ['[/]', 'v'], ['[|]', 'v'], ['[a!!]', 'v'], ['[^^^]', 'v'],
  ['[ab&&b]', 'v'], ['[a&&&b]', 'v'], ['[a-z&&b]', 'v'], ['[a&&b--c]', 'v'], ['[a-]', 'v'], ['[-a]', 'v'],
  ['[a', 'v'], ['[[a]', 'v'], ['[\\q{a]', 'v'], ['[\\z]', 'v'],
  ['(?=a)(', ''], ['a{1001}(', ''], ['\\1(', ''], ['(?<=x)[', ''],
];

function genMatch() {
  const out = [];
  for (const [source, flags, subject, opts = {}] of match) {
    const [es, ef] = opts.equiv ?? [source, flags];
    let expect;
    try {
      expect = esTest(es, ef, subject);
    } catch (e) {
      problem(`match case /${source}/${flags} does not compile: ${e.message}`);
      continue;
    }
    const c = { source, flags, subject, expect };
    if (opts.equiv) {
      c.evaluatedAs = { source: es, flags: ef };
      if (compiles(source, flags).ok) {
        problem(`/${source}/${flags} compiles in node; drop its equiv`);
      }
    }
    if (opts.deviation) c.deviation = opts.deviation;
    out.push(c);
  }
  return out;
}

function genUnsupported() {
  return unsupported.map(([source, flags, construct]) => {
    const r = compiles(source, flags);
    if (!r.ok) problem(`refused case /${source}/${flags} is not valid ECMAScript: ${r.message}`);
    return { source, flags, construct, nodeValid: r.ok };
  });
}

function genSyntax() {
  return syntax.map(([source, flags]) => {
    const r = compiles(source, flags);
    if (r.ok) problem(`syntax case /${source}/${flags} compiles in node`);
    return { source, flags, nodeError: r.message ?? '' };
  });
}

// ---- case folding ----
// Every character that toLowerCase or toUpperCase changes, and their single
// code point images, are candidates; each candidate's class is the set of
// candidates a one-character class matches ignoring case.
function foldClasses(flags, maxCp) {
  const cand = new Set();
  for (let c = 0; c <= maxCp; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    const lo = s.toLowerCase();
    const up = s.toUpperCase();
    if (lo === s && up === s) continue;
    cand.add(c);
    for (const t of [lo, up]) {
      const cps = [...t];
      if (cps.length === 1 && cps[0].codePointAt(0) <= maxCp) cand.add(cps[0].codePointAt(0));
    }
  }
  const list = [...cand].sort((a, b) => a - b);
  const strs = list.map((c) => String.fromCodePoint(c));
  const seen = new Set();
  const classes = [];
  for (const a of list) {
    if (seen.has(a)) continue;
    const esc = flags.includes('u') ? `\\u{${a.toString(16)}}` : `\\u${a.toString(16).padStart(4, '0')}`;
    const re = new RegExp(`^[${esc}]$`, flags);
    const cls = list.filter((_, i) => re.test(strs[i]));
    for (const c of cls) seen.add(c);
    if (cls.length > 1) classes.push(cls);
  }
  return classes;
}

// ---- scripts ----
// Candidate names: the Script values of PropertyValueAliases.txt as listed
// in ICU's property name data (the aliases V8 consults), plus names V8 must
// reject. Valid names are grouped by the first code point they match.
const scriptCandidates = `
  Adlam Adlm Ahom Anatolian_Hieroglyphs Hluw Arabic Arab Armenian Armn Avestan Avst
  Balinese Bali Bamum Bamu Bassa_Vah Bass Batak Batk Bengali Beng Beria_Erfe Berf
  Bhaiksuki Bhks Bopomofo Bopo Brahmi Brah Braille Brai Buginese Bugi Buhid Buhd
  Canadian_Aboriginal Cans Carian Cari Caucasian_Albanian Aghb Chakma Cakm Cham
  Cherokee Cher Chorasmian Chrs Common Zyyy Coptic Copt Qaac Cuneiform Xsux Cypriot
  Cprt Cypro_Minoan Cpmn Cyrillic Cyrl Deseret Dsrt Devanagari Deva Dives_Akuru Diak
  Dogra Dogr Duployan Dupl Egyptian_Hieroglyphs Egyp Elbasan Elba Elymaic Elym
  Ethiopic Ethi Garay Gara Georgian Geor Glagolitic Glag Gothic Goth Grantha Gran
  Greek Grek Gujarati Gujr Gunjala_Gondi Gong Gurmukhi Guru Gurung_Khema Gukh Han
  Hani Hangul Hang Hanifi_Rohingya Rohg Hanunoo Hano Hatran Hatr Hebrew Hebr
  Hiragana Hira Imperial_Aramaic Armi Inherited Zinh Qaai Inscriptional_Pahlavi Phli
  Inscriptional_Parthian Prti Javanese Java Kaithi Kthi Kannada Knda Katakana Kana
  Kawi Kayah_Li Kali Kharoshthi Khar Khitan_Small_Script Kits Khmer Khmr Khojki Khoj
  Khudawadi Sind Kirat_Rai Krai Lao Laoo Latin Latn Lepcha Lepc Limbu Limb Linear_A
  Lina Linear_B Linb Lisu Lycian Lyci Lydian Lydi Mahajani Mahj Makasar Maka
  Malayalam Mlym Mandaic Mand Manichaean Mani Marchen Marc Masaram_Gondi Gonm
  Medefaidrin Medf Meetei_Mayek Mtei Mende_Kikakui Mend Meroitic_Cursive Merc
  Meroitic_Hieroglyphs Mero Miao Plrd Modi Mongolian Mong Mro Mroo Multani Mult
  Myanmar Mymr Nabataean Nbat Nag_Mundari Nagm Nandinagari Nand New_Tai_Lue Talu
  Newa Nko Nkoo Nushu Nshu Nyiakeng_Puachue_Hmong Hmnp Ogham Ogam Ol_Chiki Olck
  Ol_Onal Onao Old_Hungarian Hung Old_Italic Ital Old_North_Arabian Narb Old_Permic
  Perm Old_Persian Xpeo Old_Sogdian Sogo Old_South_Arabian Sarb Old_Turkic Orkh
  Old_Uyghur Ougr Oriya Orya Osage Osge Osmanya Osma Pahawh_Hmong Hmng Palmyrene
  Palm Pau_Cin_Hau Pauc Phags_Pa Phag Phoenician Phnx Psalter_Pahlavi Phlp Rejang
  Rjng Runic Runr Samaritan Samr Saurashtra Saur Sharada Shrd Shavian Shaw Siddham
  Sidd Sidetic Sidt SignWriting Sgnw Sinhala Sinh Sogdian Sogd Sora_Sompeng Sora
  Soyombo Soyo Sundanese Sund Sunuwar Sunu Syloti_Nagri Sylo Syriac Syrc Tagalog
  Tglg Tagbanwa Tagb Tai_Le Tale Tai_Tham Lana Tai_Viet Tavt Tai_Yo Tayo Takri Takr
  Tamil Taml Tangsa Tnsa Tangut Tang Telugu Telu Thaana Thaa Thai Tibetan Tibt
  Tifinagh Tfng Tirhuta Tirh Todhri Todr Tolong_Siki Tols Toto Tulu_Tigalari Tutg
  Ugaritic Ugar Vai Vaii Vithkuqi Vith Wancho Wcho Warang_Citi Wara Yezidi Yezi Yi
  Yiii Zanabazar_Square Zanb Unknown Zzzz
  Katakana_Or_Hiragana Hrkt Latf Zxxx greek GREEK Old_italic OldItalic Latin_ Blis`
  .trim()
  .split(/\s+/);

function genScripts() {
  const valid = scriptCandidates.filter((n) => compiles(`\\p{sc=${n}}`, 'u').ok);
  for (const n of valid) {
    if (!compiles(`\\p{scx=${n}}`, 'u').ok) problem(`scx=${n} rejected although sc=${n} is accepted`);
  }
  let all = '';
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c < 0xd800 || c > 0xdfff) all += String.fromCodePoint(c);
  }
  const groups = new Map();
  for (const n of valid) {
    const m = new RegExp(`\\p{sc=${n}}`, 'u').exec(all);
    const key = m ? m[0].codePointAt(0) : -1;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(n);
  }
  const invalid = scriptCandidates.filter((n) => !valid.includes(n));
  return { groups: [...groups.values()].map((g) => g.sort()), invalid };
}

// ---- random differential corpus ----
// Seeded random patterns over the constructs above, each with subjects,
// minus the documented deviations (no supplementary characters without u or
// v, no U+017F or U+212A next to \b under i with u or v, no line terminator
// but \n under m) and minus /[^]/v, which V8 11.3 miscompiles
// (/^[^]{2}$/v.test("a") is true there).
function genRandom(count, seed) {
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const lits = [...'abAB kKsSſ\u212AéÉßẞ-05😀\u2028\u00A0σΣς{}]/^$xİıiI'];
  const escs = ['\\d', '\\w', '\\s', '\\D', '\\W', '\\S', '\\t', '\\n', '\\x41', '\\u0061', '\\u{61}', '\\u{1F600}',
    '\\uD83D\\uDE00', '\\uD83D', '\\0', '\\1', '\\2', '\\8', '\\c1', '\\cJ', '\\c', '\\k', '\\k<n>', '\\p{L}', '\\P{Lu}',
    '\\p{Ll}', '\\p{sc=Greek}', '\\p{Script=Latin}', '\\p{Any}', '\\p{ASCII}', '\\-', '\\/', '\\.', '\\*', '\\b', '\\B',
    '\\a', '\\u{', '\\x4', '\\01', '\\101', '\\é', '\\]', '\\^', '\\q{a}', '\\&'];
  const classAtoms = ['a', 'z', 'A', 'Z', 'k', 's', 'ſ', '\u212A', 'é', 'ß', '0', '9', '-', ' ', '^', '[', ']', '.', '&',
    '\\d', '\\w', '\\s', '\\D', '\\W', '\\S', '\\b', '\\-', '\\]', '\\\\', '\\x41', '\\u00e9', '\\u{E9}', '\\cA', '\\c1',
    '\\c', '\\0', '\\1', '\\8', '\\p{L}', '\\P{Ll}', '\\p{Lu}', '\\k', '😀', '\\uD83D', '\\q{ab}', '[a]', '&&', '--'];
  const cls = () => {
    let s = '[' + (rnd() < 0.3 ? '^' : '');
    for (let n = Math.floor(rnd() * 4); n > 0; n--) {
      s += pick(classAtoms);
      if (rnd() < 0.25) s += '-' + pick(classAtoms);
    }
    return s + (rnd() < 0.97 ? ']' : '');
  };
  const quant = () => {
    if (rnd() < 0.6) return '';
    let q = pick(['*', '+', '?', '{2}', '{1,3}', '{0,}', '{2,1}', '{,2}', '{1', '{1001}', '{3}']);
    if (rnd() < 0.2) q += '?';
    if (rnd() < 0.05) q += pick(['*', '+', '?']);
    return q;
  };
  let disj;
  const atom = (d) => {
    const r = rnd();
    if (r < 0.35) return pick(lits);
    if (r < 0.55) return pick(escs);
    if (r < 0.7) return cls();
    if (r < 0.75) return '.';
    if (r < 0.9 && d < 3) {
      return pick(['(', '(?:', '(?<n>', '(?=', '(?!', '(?<=', '(?<m>']) + disj(d + 1) + (rnd() < 0.95 ? ')' : '');
    }
    return pick(['^', '$', '\\b', '\\B', '|', ')', '(', '*']);
  };
  const alt = (d) => {
    let s = '';
    for (let n = Math.floor(rnd() * 4); n > 0; n--) s += atom(d) + quant();
    return s;
  };
  disj = (d) => {
    let s = alt(d);
    while (rnd() < 0.2) s += '|' + alt(d);
    return s;
  };
  const alphabet = [...'abABkKsSſ\u212AéÉßẞ -05😀\u00A0σΣςx{}]/.\n\u2028İıiI\b\x01\\cpLq&'];
  const flagSets = ['', '', 'i', 'u', 'iu', 'v', 'iv', 'y', 'm', 's', 'is', 'iy', 'uy', 'imsu'];
  const out = [];
  const seen = new Set();
  while (out.length < count) {
    const source = disj(0);
    const flags = pick(flagSets);
    if (seen.has(source + '/' + flags) || (flags.includes('v') && source.includes('[^]'))) continue;
    seen.add(source + '/' + flags);
    const r = compiles(source, flags);
    if (!r.ok) {
      out.push({ source, flags, syntax: true });
      continue;
    }
    const unicode = /[uv]/.test(flags);
    const allowed = alphabet.filter((c) => {
      if (!unicode && c.codePointAt(0) > 0xffff) return false;
      if (/i/.test(flags) && unicode && /\\[bB]/.test(source) && (c === 'ſ' || c === '\u212A')) return false;
      if (flags.includes('m') && (c === '\r' || c === '\u2028' || c === '\u2029')) return false;
      return true;
    });
    const subjects = [];
    const results = [];
    for (let i = 0; i < 6; i++) {
      let s = '';
      for (let n = Math.floor(rnd() * 6); n > 0; n--) s += pick(allowed);
      subjects.push(s);
      results.push(esTest(source, flags, s));
    }
    out.push({ source, flags, subjects, results });
  }
  return out;
}

const meta = { node: process.version, v8: process.versions.v8, unicode: process.versions.unicode };
const random = genRandom(1500, 20240501);
writeFileSync(join(here, 'random.json'), JSON.stringify({ ...meta, cases: random }) + '\n');
console.log(`random.json: ${random.length} cases, ${random.filter((c) => c.syntax).length} syntax errors`);
const golden = { ...meta, match: genMatch(), unsupported: genUnsupported(), syntax: genSyntax() };
writeFileSync(join(here, 'golden.json'), JSON.stringify(golden, null, 1) + '\n');
const casefold = { ...meta, withoutU: foldClasses('i', 0xffff), withU: foldClasses('iu', 0x10ffff) };
writeFileSync(join(here, 'casefold.json'), JSON.stringify(casefold) + '\n');
writeFileSync(join(here, 'scripts.json'), JSON.stringify({ ...meta, ...genScripts() }, null, 1) + '\n');
console.log(
  `golden.json: ${golden.match.length} match, ${golden.unsupported.length} unsupported, ${golden.syntax.length} syntax cases`,
);
if (failures > 0) {
  console.error(`gen_golden: ${failures} problem(s)`);
  process.exit(1);
}
