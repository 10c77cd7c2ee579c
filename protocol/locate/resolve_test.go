package locate_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/esregexp"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// resolveCase is one ResolveExpression case over the fixture tree: either
// want (node ids in order) or an expected error.
type resolveCase struct {
	name     string
	expr     *wire.LocatorExpression
	selector bool     // pass fakeSelector as Options.Selector
	want     []string // expected ids; nil with an error expected
	code     engineerr.Code
	e2eCode  string
	msg      string // the expected error message, when set
	cause    any    // a pointer to the expected Cause type, when set
}

var (
	pressedTrue  = qstates(func(s *wire.QueryStates) { s.Pressed = wire.Bool(true) })
	pressedFalse = qstates(func(s *wire.QueryStates) { s.Pressed = wire.Bool(false) })
)

func resolveCases() []resolveCase {
	saves := []string{"save-1", "save-2"}
	return []resolveCase{
		// LOC-001
		{name: "LOC-001 text query matching nothing returns empty without error", expr: textQ(exact("No such thing")), want: []string{}},
		{name: "LOC-001 role query matching nothing returns empty", expr: roleQ("button", named(exact("Nope"))), want: []string{}},
		{name: "LOC-001 scope matching nothing returns empty", expr: scope(roleQ("button"), roleQ("dialog")), want: []string{}},

		// LOC-002
		{name: "LOC-002 role query returns both duplicate buttons in document order", expr: roleQ("button", named(exact("Save"))), want: saves},
		{name: "LOC-002 text query returns both duplicate buttons", expr: textQ(exact("Save")), want: saves},

		// LOC-004
		{name: "LOC-004 role compares exactly, case-sensitive", expr: roleQ("Button"), want: []string{}},
		{name: "LOC-004 role is not a substring match", expr: roleQ("butto"), want: []string{}},
		{name: "LOC-004 role ignores the exact flag", expr: q(wire.QueryRole, sub("butto")), want: []string{}},
		{name: "LOC-004 role with inexact name", expr: roleQ("button", named(sub("sAVE"))), want: saves},
		{name: "LOC-004 role with regexp name", expr: roleQ("button", named(re("^(Save|Bold)$", ""))), want: []string{"save-1", "save-2", "bold"}},
		{name: "LOC-004 role returns every visible node of the role, never a hidden one",
			expr: roleQ("button"), want: []string{"save-1", "save-2", "bold", "italic", "underline", "nest-leaf", "below-fold"}},
		{name: "LOC-004 role never matches a hidden node even by name", expr: roleQ("button", named(exact("Ghost"))), want: []string{}},
		{name: "LOC-004 role never matches a hidden heading", expr: roleQ("heading", named(exact("Hidden heading"))), want: []string{}},
		{name: "LOC-004 pressed true", expr: roleQ("button", pressedTrue), want: []string{"bold"}},
		{name: "LOC-004 pressed false counts an absent state as false",
			expr: roleQ("button", pressedFalse), want: []string{"save-1", "save-2", "italic", "underline", "nest-leaf", "below-fold"}},
		{name: "LOC-004 checked true", expr: roleQ("checkbox", qstates(func(s *wire.QueryStates) { s.Checked = wire.Bool(true) })), want: []string{"subscribe"}},
		{name: "LOC-004 checked false excludes a checked node", expr: roleQ("checkbox", qstates(func(s *wire.QueryStates) { s.Checked = wire.Bool(false) })), want: []string{}},
		{name: "LOC-004 absent disabled reads false", expr: roleQ("checkbox", qstates(func(s *wire.QueryStates) { s.Disabled = wire.Bool(false) })), want: []string{"subscribe"}},
		{name: "LOC-004 several states must all hold", expr: roleQ("button", qstates(func(s *wire.QueryStates) {
			s.Pressed = wire.Bool(true)
			s.Expanded = wire.Bool(true)
		})), want: []string{}},
		{name: "LOC-004 headings of every level", expr: roleQ("heading"), want: []string{"h1", "h2", "h3"}},
		{name: "LOC-004 level 2 excludes the hidden level-2 heading", expr: roleQ("heading", lvl(2)), want: []string{"h2"}},
		{name: "LOC-004 level 3", expr: roleQ("heading", lvl(3)), want: []string{"h3"}},
		{name: "LOC-004 level nobody has", expr: roleQ("heading", lvl(4)), want: []string{}},
		{name: "LOC-004 level on nodes without level never matches", expr: roleQ("button", lvl(1)), want: []string{}},
		{name: "LOC-004 role, name, states and level together", expr: roleQ("heading", named(sub("section")), lvl(2), pressedFalse), want: []string{"h2"}},
		{name: "LOC-004 empty role matches role-less nodes, each once", expr: scope(roleQ(""), q(wire.QueryTestID, exact("echo-box"))), want: []string{"echo-mid", "echo-leaf"}},
		{name: "LOC-004 empty role never matches a hidden role-less node", expr: scope(roleQ(""), q(wire.QueryTestID, exact("ghost-region"))), want: []string{}},
		{name: "LOC-004 role query with a regexp value fails ENGINE_FAILURE",
			expr: q(wire.QueryRole, re("button", "")), code: engineerr.EngineFailure, msg: "role query value must be a string"},

		// LOC-005
		{name: "LOC-005 label finds a hidden node without visible", expr: q(wire.QueryLabel, exact("Ghost label")), want: []string{"ghost-input"}},
		{name: "LOC-005 label visible:true drops the hidden node", expr: q(wire.QueryLabel, exact("Ghost label"), visible), want: []string{}},
		{name: "LOC-005 placeholder without visible", expr: q(wire.QueryPlaceholder, exact("Ghost placeholder")), want: []string{"ghost-input"}},
		{name: "LOC-005 placeholder visible:true", expr: q(wire.QueryPlaceholder, exact("Ghost placeholder"), visible), want: []string{}},
		{name: "LOC-005 displayValue without visible", expr: q(wire.QueryDisplayValue, exact("ghost value")), want: []string{"ghost-input"}},
		{name: "LOC-005 displayValue visible:true", expr: q(wire.QueryDisplayValue, exact("ghost value"), visible), want: []string{}},
		{name: "LOC-005 testId without visible", expr: q(wire.QueryTestID, exact("ghost-id")), want: []string{"ghost-input"}},
		{name: "LOC-005 testId visible:true", expr: q(wire.QueryTestID, exact("ghost-id"), visible), want: []string{}},
		{name: "LOC-005 text without visible", expr: textQ(exact("Ghost text")), want: []string{"ghost-text", "ghost-visible"}},
		{name: "LOC-005 text visible:true", expr: textQ(exact("Ghost text"), visible), want: []string{"ghost-visible"}},
		{name: "LOC-005 role visible:true", expr: roleQ("textbox", visible), want: []string{"label-inner", "search"}},
		{name: "LOC-005 visible:true under scope", expr: scope(textQ(sub("ghost"), visible), roleQ("main")), want: []string{"ghost-visible"}},
		{name: "LOC-005 visible:true on a scope query", expr: scope(textQ(sub("ghost")), q(wire.QueryTestID, sub("ghost"), visible)), want: []string{"ghost-visible"}},
		{name: "LOC-005 filter.has without visible keeps the hidden match's container",
			expr: filter(q(wire.QueryTestID, exact("ghost-region")), nil, textQ(exact("Ghost text"))), want: []string{"ghost-region"}},
		{name: "LOC-005 visible:true inside filter.has",
			expr: filter(q(wire.QueryTestID, exact("ghost-region")), nil, textQ(exact("Ghost text"), visible)), want: []string{}},
		{name: "LOC-005 visible:true inside filter.has keeps a visible match",
			expr: filter(q(wire.QueryTestID, sub("ghost-")), nil, textQ(exact("Ghost text"), visible)), want: []string{"ghost-visible-box"}},
		{name: "LOC-005 index first without visible picks the hidden node", expr: index(textQ(exact("Ghost text")), "first", 0), want: []string{"ghost-text"}},
		{name: "LOC-005 visible:true applies before index", expr: index(textQ(exact("Ghost text"), visible), "first", 0), want: []string{"ghost-visible"}},

		// LOC-006
		{name: "LOC-006 text query returns only the innermost node", expr: textQ(exact("Echo me")), want: []string{"echo-leaf"}},
		{name: "LOC-006 inexact text query returns only the innermost node", expr: textQ(sub("echo")), want: []string{"echo-leaf"}},
		{name: "LOC-006 regexp text query returns only the innermost node", expr: textQ(re("^Echo", "")), want: []string{"echo-leaf"}},
		{name: "LOC-006 label query returns only the innermost node", expr: q(wire.QueryLabel, exact("Email address")), want: []string{"label-inner"}},
		{name: "LOC-006 text matching a container name returns the innermost", expr: textQ(exact("Nest")), want: []string{"nest-b"}},
		{name: "LOC-006 role query keeps nested matches", expr: roleQ("group", named(exact("Nest"))), want: []string{"nest-a", "nest-b"}},
		{name: "LOC-006 testId query keeps nested matches", expr: q(wire.QueryTestID, exact("echo-box")), want: []string{"echo-outer", "echo-mid"}},
		{name: "LOC-006 innermost applies after visible:true", expr: textQ(sub("ghost"), visible), want: []string{"ghost-visible"}},

		// LOC-007
		{name: "LOC-007 label matches name", expr: q(wire.QueryLabel, exact("Search")), want: []string{"search"}},
		{name: "LOC-007 label does not match text", expr: q(wire.QueryLabel, exact("Apple")), want: []string{}},
		{name: "LOC-007 placeholder matches attributes.placeholder", expr: q(wire.QueryPlaceholder, exact("Type to search")), want: []string{"search"}},
		{name: "LOC-007 placeholder does not match name", expr: q(wire.QueryPlaceholder, exact("Search")), want: []string{}},
		{name: "LOC-007 displayValue matches value", expr: q(wire.QueryDisplayValue, exact("hello world")), want: []string{"search"}},
		{name: "LOC-007 displayValue does not match name", expr: q(wire.QueryDisplayValue, exact("Search")), want: []string{}},
		{name: "LOC-007 testId matches testId", expr: q(wire.QueryTestID, exact("save-primary")), want: []string{"save-1"}},
		{name: "LOC-007 testId does not match name", expr: q(wire.QueryTestID, exact("Save")), want: []string{}},
		{name: "LOC-007 text matches text", expr: textQ(exact("Apple")), want: []string{"fruit-apple", "veg-apple"}},
		{name: "LOC-007 text matches name", expr: textQ(exact("Subscribe")), want: []string{"subscribe"}},
		{name: "LOC-007 text does not match value", expr: textQ(exact("hello world")), want: []string{}},
		{name: "LOC-007 text does not match placeholder or testId", expr: textQ(sub("save-primary")), want: []string{}},
		{name: "LOC-007 a 300-character name matches whole", expr: q(wire.QueryLabel, exact(strings.Repeat("Long name ", 30))), want: []string{"long-name"}},
		{name: "LOC-007 a 600-character text matches whole", expr: textQ(exact(strings.Repeat("0123456789", 60))), want: []string{"long-text"}},
		{name: "LOC-007 a node below the fold matches", expr: roleQ("button", named(exact("Below the fold"))), want: []string{"below-fold"}},

		// LOC-008
		{name: "LOC-008 scope restricts to the scope's descendants", expr: scope(textQ(exact("Apple")), roleQ("list", named(exact("Fruits")))), want: []string{"fruit-apple"}},
		{name: "LOC-008 scope with several matches", expr: scope(textQ(exact("Apple")), roleQ("list")), want: []string{"fruit-apple", "veg-apple"}},
		{name: "LOC-008 scope never returns a scope node itself", expr: scope(roleQ("group", named(exact("Nest"))), roleQ("group", named(exact("Nest")))), want: []string{"nest-b"}},
		{name: "LOC-008 scope nodes that are not nested give nothing", expr: scope(roleQ("list"), roleQ("list")), want: []string{}},
		{name: "LOC-008 buttons under the toolbar", expr: scope(roleQ("button"), roleQ("toolbar")), want: []string{"save-1", "save-2", "bold", "italic", "underline"}},
		{name: "LOC-008 chained scopes", expr: scope(textQ(exact("Leek")), scope(roleQ("list"), roleQ("main"))), want: []string{"veg-leek"}},
		{name: "LOC-008 a scope's query sees only the scope's candidates", expr: scope(roleQ("button"), scope(roleQ("group"), roleQ("group", named(exact("Nest"))))), want: []string{"nest-leaf"}},
		{name: "LOC-008 each node at most once when matched via two scope parents", expr: scope(roleQ("button"), roleQ("group", named(exact("Nest")))), want: []string{"nest-leaf"}},
		{name: "LOC-008 innermost rule applies inside the scope", expr: scope(textQ(exact("Echo me")), roleQ("main")), want: []string{"echo-leaf"}},
		{name: "LOC-008 innermost within a pool reached via two scope parents", expr: scope(textQ(exact("Echo me")), q(wire.QueryTestID, exact("echo-box"))), want: []string{"echo-leaf"}},
		{name: "LOC-008 a scope node that is a text match is not returned", expr: scope(textQ(exact("Echo me")), textQ(exact("Echo me"))), want: []string{}},

		// LOC-009
		{name: "LOC-009 hasText matches a descendant's text", expr: filter(roleQ("list"), ptr(exact("Banana")), nil), want: []string{"fruits"}},
		{name: "LOC-009 hasText matches the node's own name", expr: filter(roleQ("button"), ptr(exact("Save")), nil), want: saves},
		{name: "LOC-009 hasText matches the node's own value", expr: filter(roleQ("textbox"), ptr(exact("hello world")), nil), want: []string{"search"}},
		{name: "LOC-009 hasText matches a descendant's value", expr: filter(roleQ("main"), ptr(sub("HELLO")), nil), want: []string{"main"}},
		{name: "LOC-009 hasText ignores placeholder and testId", expr: filter(roleQ("main"), ptr(sub("Type to search")), nil), want: []string{}},
		{name: "LOC-009 hasText ignores testId", expr: filter(roleQ("toolbar"), ptr(exact("save-primary")), nil), want: []string{}},
		{name: "LOC-009 hasText with a regexp", expr: filter(roleQ("list"), ptr(re("^L", "")), nil), want: []string{"vegetables"}},
		{name: "LOC-009 hasText also counts hidden descendants", expr: filter(q(wire.QueryTestID, sub("ghost")), ptr(exact("Ghost")), nil), want: []string{"ghost-region"}},
		{name: "LOC-009 hasText nested sources", expr: filter(roleQ("group"), ptr(exact("Deep")), nil), want: []string{"nest-a", "nest-b"}},
		{name: "LOC-009 has keeps nodes with a match among strict descendants", expr: filter(roleQ("list"), nil, textQ(exact("Apple"))), want: []string{"fruits", "vegetables"}},
		{name: "LOC-009 has with one match", expr: filter(roleQ("list"), nil, textQ(exact("Banana"))), want: []string{"fruits"}},
		{name: "LOC-009 has excludes the node itself", expr: filter(textQ(exact("Apple")), nil, textQ(exact("Apple"))), want: []string{}},
		{name: "LOC-009 has on nested sources", expr: filter(roleQ("group", named(exact("Nest"))), nil, roleQ("group")), want: []string{"nest-a"}},
		{name: "LOC-009 has with a scoped query", expr: filter(roleQ("main"), nil, scope(textQ(exact("Leek")), roleQ("list"))), want: []string{"main"}},
		{name: "LOC-009 has and hasText both hold", expr: filter(roleQ("list"), ptr(exact("Banana")), textQ(exact("Apple"))), want: []string{"fruits"}},
		{name: "LOC-009 has and hasText: hasText fails", expr: filter(roleQ("list"), ptr(exact("Cherry")), textQ(exact("Apple"))), want: []string{}},
		{name: "LOC-009 has and hasText: has fails", expr: filter(roleQ("list"), ptr(exact("Banana")), roleQ("button")), want: []string{}},
		{name: "LOC-009 nested filters", expr: filter(roleQ("main"), nil, filter(roleQ("list"), ptr(exact("Leek")), nil)), want: []string{"main"}},

		// LOC-010
		{name: "LOC-010 index first", expr: index(roleQ("button", named(exact("Save"))), "first", 0), want: []string{"save-1"}},
		{name: "LOC-010 index last", expr: index(roleQ("button", named(exact("Save"))), "last", 0), want: []string{"save-2"}},
		{name: "LOC-010 index 0", expr: index(roleQ("button", named(exact("Save"))), "", 0), want: []string{"save-1"}},
		{name: "LOC-010 index 1", expr: index(roleQ("button", named(exact("Save"))), "", 1), want: []string{"save-2"}},
		{name: "LOC-010 index past the end", expr: index(roleQ("button", named(exact("Save"))), "", 2), want: []string{}},
		{name: "LOC-010 index far past the end", expr: index(roleQ("button"), "", 1<<40), want: []string{}},
		{name: "LOC-010 index negative gives nothing", expr: index(roleQ("button"), "", -1), want: []string{}},
		{name: "LOC-010 first of nothing", expr: index(roleQ("dialog"), "first", 0), want: []string{}},
		{name: "LOC-010 last of nothing", expr: index(roleQ("dialog"), "last", 0), want: []string{}},
		{name: "LOC-010 chained index", expr: index(index(roleQ("button"), "last", 0), "first", 0), want: []string{"below-fold"}},
		{name: "LOC-010 index as a scope", expr: scope(roleQ("button"), index(roleQ("group", named(exact("Nest"))), "last", 0)), want: []string{"nest-leaf"}},

		// LOC-011
		{name: "LOC-011 exact compares normalized whitespace", expr: textQ(exact("Multiple spaces and more")), want: []string{"spaces"}},
		{name: "LOC-011 exact normalizes the pattern too", expr: textQ(exact("\u3000 Multiple\n\nspaces \u00a0and\tmore\ufeff")), want: []string{"spaces"}},
		{name: "LOC-011 exact is case-sensitive", expr: textQ(exact("multiple spaces and more")), want: []string{}},
		{name: "LOC-011 exact is whole, not a substring", expr: textQ(exact("Multiple spaces")), want: []string{}},
		{name: "LOC-011 inexact is a case-insensitive substring", expr: textQ(sub("SPACES AND")), want: []string{"spaces"}},
		{name: "LOC-011 inexact across a normalized run", expr: textQ(sub("spaces\t\tand")), want: []string{"spaces"}},
		{name: "LOC-011 inexact lowers non-ASCII", expr: textQ(sub("café élan")), want: []string{"cafe"}},
		{name: "LOC-011 inexact lowers the pattern", expr: textQ(sub("CAFÉ")), want: []string{"cafe"}},
		{name: "LOC-011 inexact É matches é", expr: textQ(sub("fé él")), want: []string{"cafe"}},
		{name: "LOC-011 exact keeps É distinct from é", expr: textQ(exact("Café élan")), want: []string{}},
		{name: "LOC-011 exact non-ASCII", expr: textQ(exact("Café ÉLAN")), want: []string{"cafe"}},
		{name: "LOC-011 exact normalized value", expr: q(wire.QueryDisplayValue, exact(" hello world ")), want: []string{"search"}},
		{name: "LOC-011 inexact normalizes the pattern", expr: q(wire.QueryDisplayValue, sub("hello  world")), want: []string{"search"}},
		{name: "LOC-011 inexact empty pattern matches every defined member", expr: q(wire.QueryDisplayValue, sub("")), want: []string{"search", "ghost-input"}},

		// LOC-012
		{name: "LOC-012 regexp flag i", expr: roleQ("button", named(re("^save$", "i"))), want: saves},
		{name: "LOC-012 regexp without i is case-sensitive", expr: roleQ("button", named(re("^save$", ""))), want: []string{}},
		{name: "LOC-012 regexp flag y is sticky from position 0", expr: roleQ("button", named(re("ave", "y"))), want: []string{}},
		{name: "LOC-012 regexp without y searches", expr: roleQ("button", named(re("ave", ""))), want: saves},
		{name: "LOC-012 regexp flag y at position 0", expr: roleQ("button", named(re("Sav", "y"))), want: saves},
		{name: "LOC-012 regexp flags iy", expr: roleQ("button", named(re("sav", "iy"))), want: saves},
		{name: "LOC-012 regexp \\u00e9", expr: textQ(re("Caf\\u00e9", "")), want: []string{"cafe"}},
		{name: "LOC-012 regexp \\u00e9 under u", expr: textQ(re("^Caf\\u00e9 ", "u")), want: []string{"cafe"}},
		{name: "LOC-012 regexp named group", expr: textQ(re("^(?<fruit>Apple|Leek)$", "")), want: []string{"fruit-apple", "veg-apple", "veg-leek"}},
		{name: "LOC-012 regexp [^] matches any character", expr: textQ(re("^Echo[^]me$", "")), want: []string{"echo-leaf"}},
		{name: "LOC-012 regexp runs on normalized text", expr: textQ(re("^Multiple spaces and more$", "")), want: []string{"spaces"}},
		{name: "LOC-012 regexp \\s on normalized text", expr: textQ(re("and\\smore", "")), want: []string{"spaces"}},
		{name: "LOC-012 regexp lookbehind is UNSUPPORTED_CAPABILITY", expr: textQ(re("(?<=Caf)é", "")),
			code: engineerr.UnsupportedCapability, cause: new(*esregexp.UnsupportedError)},
		{name: "LOC-012 regexp backreference is UNSUPPORTED_CAPABILITY", expr: textQ(re("(A)\\1", "")),
			code: engineerr.UnsupportedCapability, cause: new(*esregexp.UnsupportedError)},
		{name: "LOC-012 regexp named backreference is UNSUPPORTED_CAPABILITY", expr: textQ(re("(?<a>x)\\k<a>", "")),
			code: engineerr.UnsupportedCapability, cause: new(*esregexp.UnsupportedError)},
		{name: "LOC-012 unsupported regexp fails even when no node would be tested",
			expr: scope(textQ(re("(?<=a)b", "")), roleQ("dialog")), code: engineerr.UnsupportedCapability},
		{name: "LOC-012 unsupported regexp in a role name", expr: roleQ("button", named(re("(?<!x)Save", ""))), code: engineerr.UnsupportedCapability},
		{name: "LOC-012 unsupported regexp in hasText", expr: filter(roleQ("list"), ptr(re("(?=A)", "")), nil), code: engineerr.UnsupportedCapability},
		{name: "LOC-012 invalid pattern is e2e INVALID_ARGUMENT", expr: textQ(re("(", "")),
			e2eCode: "INVALID_ARGUMENT", cause: new(*esregexp.SyntaxError)},
		{name: "LOC-012 invalid flags are e2e INVALID_ARGUMENT", expr: textQ(re("a", "ii")), e2eCode: "INVALID_ARGUMENT", cause: new(*esregexp.FlagsError)},
		{name: "LOC-012 u with v is e2e INVALID_ARGUMENT", expr: textQ(re("a", "uv")), e2eCode: "INVALID_ARGUMENT"},
		{name: "LOC-012 unknown flag is e2e INVALID_ARGUMENT", expr: textQ(re("a", "x")), e2eCode: "INVALID_ARGUMENT"},
		{name: "LOC-012 flags out of order are e2e INVALID_ARGUMENT", expr: textQ(re("a", "yi")), e2eCode: "INVALID_ARGUMENT"},

		// LOC-013
		{name: "LOC-013 frame fails FRAME_NOT_FOUND", expr: frame("iframe#pay", textQ(exact("Save"))), code: engineerr.FrameNotFound,
			msg: `no nested document matches "iframe#pay": this surface has none to scope a query into`},
		{name: "LOC-013 frame as a scope fails FRAME_NOT_FOUND", expr: scope(roleQ("button"), frame("f", roleQ("main"))), code: engineerr.FrameNotFound},
		{name: "LOC-013 frame inside has fails even with no source match", expr: filter(roleQ("dialog"), nil, frame("f", roleQ("main"))), code: engineerr.FrameNotFound},
		{name: "LOC-013 frame comes before a bad regexp in its source", expr: frame("f", textQ(re("(", ""))), code: engineerr.FrameNotFound},
		{name: "LOC-013 frame with a selector language still fails", expr: frame("f", roleQ("main")), selector: true, code: engineerr.FrameNotFound},

		// LOC-014
		{name: "LOC-014 selector without a selector language is UNSUPPORTED_CAPABILITY", expr: sel("button.save"),
			code: engineerr.UnsupportedCapability, msg: `selector "button.save" needs a platform selector language, and this surface has none`},
		{name: "LOC-014 selector inside a scope without a selector language", expr: scope(roleQ("button"), sel("#toolbar")), code: engineerr.UnsupportedCapability},
		{name: "LOC-014 selector for the duplicate buttons returns both in document order", expr: sel("css=button.save"), selector: true, want: saves},
		{name: "LOC-014 selector answer is put in document order", expr: index(sel("reverse"), "first", 0), selector: true, want: []string{"root"}},
		{name: "LOC-014 selector answer loses its duplicates", expr: index(sel("reverse"), "", 2), selector: true, want: []string{"h1"}},
		{name: "LOC-014 selector as a scope", expr: scope(roleQ("button"), sel("css=#toolbar")), selector: true, want: []string{"save-1", "save-2", "bold", "italic", "underline"}},
		{name: "LOC-014 selector inside has sees only strict descendants", expr: filter(roleQ("group"), nil, sel("role=button")), selector: true, want: []string{"nest-a", "nest-b"}},
		{name: "LOC-014 selector inside has", expr: filter(roleQ("list"), nil, sel("role=listitem")), selector: true, want: []string{"fruits", "vegetables"}},
		{name: "LOC-014 selector with index", expr: index(sel("testId=save-secondary"), "first", 0), selector: true, want: []string{"save-2"}},
		{name: "LOC-014 selector matching nothing", expr: sel("testId=nope"), selector: true, want: []string{}},
		{name: "LOC-014 selector errors pass through", expr: sel("error"), selector: true, e2eCode: "INVALID_ARGUMENT", msg: `bad selector "error"`},
		{name: "LOC-014 selector answering a foreign node is ENGINE_FAILURE", expr: sel("outside"), selector: true, code: engineerr.EngineFailure},
	}
}

func TestResolveExpression(t *testing.T) {
	for _, tc := range resolveCases() {
		t.Run(tc.name, func(t *testing.T) {
			root := fixtureTree()
			var opts locate.Options
			if tc.selector {
				opts.Selector = fakeSelector
			}
			got, err := locate.ResolveExpression(tc.expr, []*wire.SemanticNode{root}, opts)
			if tc.want == nil {
				checkError(t, err, tc.code, tc.e2eCode, tc.msg, tc.cause)
				return
			}
			if err != nil {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if got == nil {
				t.Fatalf("nil answer, want a non-nil slice")
			}
			if g := ids(got); !slices.Equal(g, tc.want) {
				t.Fatalf("got %q, want %q", g, tc.want)
			}
			// The answer holds the tree's own nodes.
			for _, n := range got {
				found := false
				root.Walk(func(m *wire.SemanticNode) bool { found = found || m == n; return !found })
				if !found {
					t.Fatalf("node %q is not a node of the tree", n.Ref.ID)
				}
			}
			// The literal transcription of §10.1 agrees.
			nv, err := naiveResolve(tc.expr, root, opts)
			if err != nil {
				t.Fatalf("oracle error %v", err)
			}
			if g := ids(nv); !slices.Equal(g, tc.want) {
				t.Fatalf("oracle got %q, want %q", g, tc.want)
			}
		})
	}
}

// checkError checks err against an expected engine code or e2e code, an
// optional message and an optional Cause type (a pointer to a pointer type).
func checkError(t *testing.T, err error, code engineerr.Code, e2eCode, msg string, cause any) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s%s", code, e2eCode)
	}
	var gotMsg string
	switch {
	case code != "":
		var ee *engineerr.EngineError
		if !errors.As(err, &ee) || ee.Code != code {
			t.Fatalf("error %v (%T), want EngineError %s", err, err, code)
		}
		if ee.Retryable {
			t.Fatalf("error %v is retryable", err)
		}
		gotMsg = ee.Message
	case e2eCode != "":
		var e2 *engineerr.E2EError
		if !errors.As(err, &e2) || e2.Category != engineerr.CategoryTest || e2.Code != e2eCode {
			t.Fatalf("error %v (%T), want e2e test %s", err, err, e2eCode)
		}
		gotMsg = e2.Message
	}
	if msg != "" && gotMsg != msg {
		t.Fatalf("message %q, want %q", gotMsg, msg)
	}
	if cause != nil && !errors.As(err, cause) {
		t.Fatalf("error %v lacks a cause of type %T", err, cause)
	}
	if !documentedErrForTest(err) {
		t.Fatalf("error %v is not of a documented kind", err)
	}
}

func documentedErrForTest(err error) bool { return documentedErr(err) }

// LOC-012: an unsupported regexp carries esregexp's exact message.
func TestUnsupportedRegexpMessage(t *testing.T) {
	_, want := esregexp.Compile("(?<=Caf)é", "i")
	var ue *esregexp.UnsupportedError
	if !errors.As(want, &ue) {
		t.Fatalf("esregexp.Compile: %v, want an UnsupportedError", want)
	}
	_, err := locate.ResolveExpression(textQ(re("(?<=Caf)é", "i")), []*wire.SemanticNode{fixtureTree()}, locate.Options{})
	var ee *engineerr.EngineError
	if !errors.As(err, &ee) || ee.Code != engineerr.UnsupportedCapability {
		t.Fatalf("error %v, want UNSUPPORTED_CAPABILITY", err)
	}
	if ee.Message != ue.Error() {
		t.Fatalf("message %q, want %q", ee.Message, ue.Error())
	}
	if !strings.HasPrefix(ee.Message, "regular expression /(?<=Caf)é/i uses ") || !strings.HasSuffix(ee.Message, ", which this engine cannot evaluate") {
		t.Fatalf("message %q does not follow §10.4", ee.Message)
	}
	if ee.Cause == nil || !errors.As(ee.Cause, &ue) {
		t.Fatalf("cause %v, want the UnsupportedError", ee.Cause)
	}
}

// Grammar violations a Go caller can build fail with ENGINE_FAILURE.
func TestResolveMalformed(t *testing.T) {
	cyclic := &wire.LocatorExpression{Kind: wire.ExprFilter, HasText: ptr(exact("x"))}
	cyclic.Source = cyclic
	shared := roleQ("list")
	cases := []struct {
		name string
		expr *wire.LocatorExpression
		want []string
		code engineerr.Code
	}{
		{name: "nil expression", expr: nil, code: engineerr.EngineFailure},
		{name: "unknown expression kind", expr: &wire.LocatorExpression{Kind: "xpath"}, code: engineerr.EngineFailure},
		{name: "query without a query", expr: &wire.LocatorExpression{Kind: wire.ExprQuery}, code: engineerr.EngineFailure},
		{name: "filter without a source", expr: &wire.LocatorExpression{Kind: wire.ExprFilter, HasText: ptr(exact("x"))}, code: engineerr.EngineFailure},
		{name: "index without a source", expr: &wire.LocatorExpression{Kind: wire.ExprIndex}, code: engineerr.EngineFailure},
		{name: "unknown index position", expr: index(roleQ("button"), "middle", 0), code: engineerr.EngineFailure},
		{name: "unknown query kind", expr: q("altText", exact("x")), code: engineerr.EngineFailure},
		{name: "unknown pattern kind", expr: textQ(wire.TextPattern{Kind: "glob"}), code: engineerr.EngineFailure},
		{name: "role query with an unknown pattern kind", expr: q(wire.QueryRole, wire.TextPattern{Kind: "glob"}), code: engineerr.EngineFailure},
		{name: "cyclic expression", expr: cyclic, code: engineerr.EngineFailure},
		{name: "shared subexpression is not a cycle", expr: filter(shared, nil, shared), want: []string{}},
		{name: "filter with neither hasText nor has answers its source", expr: filter(roleQ("list"), nil, nil), want: []string{"fruits", "vegetables"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := locate.ResolveExpression(tc.expr, []*wire.SemanticNode{fixtureTree()}, locate.Options{})
			if tc.want == nil {
				checkError(t, err, tc.code, "", "", nil)
				return
			}
			if err != nil || !slices.Equal(ids(got), tc.want) {
				t.Fatalf("got %q, %v; want %q", ids(got), err, tc.want)
			}
		})
	}
}

// Top-level nodes: document order follows the list; overlapping, repeated
// and nil top-level nodes count each node once.
func TestResolveTopLevelNodes(t *testing.T) {
	a := el("a", role("button"), name("A"), kids(el("a1", role("button"), name("A1"))))
	b := el("b", role("button"), name("B"))
	buttons := roleQ("button")
	cases := []struct {
		name  string
		nodes []*wire.SemanticNode
		want  []string
	}{
		{"no nodes", nil, []string{}},
		{"only nil", []*wire.SemanticNode{nil}, []string{}},
		{"two trees in list order", []*wire.SemanticNode{&b, &a}, []string{"b", "a", "a1"}},
		{"repeated top-level node", []*wire.SemanticNode{&a, &a, nil}, []string{"a", "a1"}},
		{"a top-level node inside an earlier one", []*wire.SemanticNode{&a, &a.Children[0], &b}, []string{"a", "a1", "b"}},
		{"a top-level node inside a later one", []*wire.SemanticNode{&a.Children[0], &b, &a}, []string{"b", "a", "a1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := locate.ResolveExpression(buttons, tc.nodes, locate.Options{})
			if err != nil || got == nil || !slices.Equal(ids(got), tc.want) {
				t.Fatalf("got %q (nil %v), %v; want %q", ids(got), got == nil, err, tc.want)
			}
		})
	}
	// The innermost rule and scope work across top-level trees.
	c := el("c", text("x"), kids(el("c1", text("x"))))
	got, err := locate.ResolveExpression(textQ(exact("x")), []*wire.SemanticNode{&c, &b}, locate.Options{})
	if err != nil || !slices.Equal(ids(got), []string{"c1"}) {
		t.Fatalf("innermost across trees: %q, %v", ids(got), err)
	}
}

// The resolver never modifies the tree or the expression.
func TestResolveDoesNotModify(t *testing.T) {
	root := fixtureTree()
	before, _ := jsonOf(root)
	for _, tc := range resolveCases() {
		exprBefore, _ := jsonOf(tc.expr)
		opts := locate.Options{}
		if tc.selector {
			opts.Selector = fakeSelector
		}
		_, _ = locate.ResolveExpression(tc.expr, []*wire.SemanticNode{root}, opts)
		if after, _ := jsonOf(tc.expr); after != exprBefore {
			t.Fatalf("%s: expression changed", tc.name)
		}
	}
	if after, _ := jsonOf(root); after != before {
		t.Fatalf("tree changed")
	}
}

// LOC-014: Options.Selector receives the current candidates: every node at
// the top, the strict descendants of a source match inside filter.has.
func TestSelectorCandidates(t *testing.T) {
	var calls [][]string
	opts := locate.Options{Selector: func(s string, cand []*wire.SemanticNode) ([]*wire.SemanticNode, error) {
		calls = append(calls, ids(cand))
		return fakeSelector(s, cand)
	}}
	root := fixtureTree()
	got, err := locate.ResolveExpression(filter(roleQ("list"), nil, sel("role=listitem")), []*wire.SemanticNode{root}, opts)
	if err != nil || !slices.Equal(ids(got), []string{"fruits", "vegetables"}) {
		t.Fatalf("got %q, %v", ids(got), err)
	}
	want := [][]string{{"fruit-apple", "fruit-banana"}, {"veg-apple", "veg-leek"}}
	if !slices.EqualFunc(calls, want, slices.Equal) {
		t.Fatalf("candidates %q, want %q", calls, want)
	}
	calls = nil
	if _, err := locate.ResolveExpression(sel("*"), []*wire.SemanticNode{root}, opts); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || len(calls[0]) != 40 || calls[0][0] != "root" || calls[0][39] != "below-fold" {
		t.Fatalf("top-level candidates %q", calls)
	}
}
