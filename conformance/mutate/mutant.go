package mutate

import (
	"fmt"
	"sort"
	"strings"
)

// Operator is one kind of mutation.
type Operator string

// Member operators change one member of one kind of message, at a site
// found in the schemas.
const (
	OpDrop     Operator = "drop"           // remove the member
	OpNull     Operator = "null"           // set it to null
	OpUnknown  Operator = "unknown-member" // add a member "e2eMutant": true to the object
	OpRetype   Operator = "retype"         // change the JSON type: true → "true", 3 → "3", "x" → 0, {} → [], [] → {}, null → {}
	OpEnumCase Operator = "enum-case"      // change an enum or const string's letter case
	OpInc      Operator = "inc"            // number + 1
	OpDec      Operator = "dec"            // number - 1
	OpEmpty    Operator = "empty-string"   // a non-empty string becomes ""
)

// Envelope operators change a response's JSON-RPC envelope.
const (
	OpIDType    Operator = "id-type"      // the id 7 becomes "7" (and "a" becomes a number)
	OpIDValue   Operator = "id-value"     // the id 7 becomes 8 ("a" becomes "a-")
	OpNoJSONRPC Operator = "drop-jsonrpc" // remove "jsonrpc"
	OpNeither   Operator = "no-result"    // remove result (or error): neither is left
	OpBoth      Operator = "both"         // a result response also gets an error member
)

// Frame operators change how a message is framed.
const (
	OpUTF16Length       Operator = "utf16-length"       // Content-Length counts UTF-16 units (non-ASCII content only)
	OpCharLength        Operator = "char-length"        // Content-Length counts code points (non-ASCII content only)
	OpHeaderCase        Operator = "header-case"        // "content-length" in lower case, on every frame
	OpExtraHeader       Operator = "extra-header"       // an "X-E2e-Mutant: 1" header field
	OpConflictingLength Operator = "conflicting-length" // a second, different Content-Length before the right one
	OpSplit             Operator = "split"              // every frame in two writes 2 ms apart
	OpCoalesce          Operator = "coalesce"           // two frames in one write, on every frame
	OpTruncate          Operator = "truncate"           // half the content, then the stream ends
)

// Exchange operators change which messages are sent and when.
const (
	OpDuplicate        Operator = "duplicate-response"      // a response written twice
	OpReorder          Operator = "reorder"                 // a response held back behind the next response (never behind shutdown's)
	OpReorderShutdown  Operator = "reorder-behind-shutdown" // a response held back behind the shutdown response
	OpDelayAborted     Operator = "delay-aborted"           // the answer to an aborted request 3 s late
	OpDelayEmptyLocate Operator = "delay-empty-locate"      // a zero-match engine/locate answered 3 s late
	OpNeverSent        Operator = "never-sent"              // the response to one method never written
	OpLateNotification Operator = "late-notification"       // an attempt/* notification repeated after the endAttempt response
	OpSwapCode         Operator = "swap-code"               // an engine error's data.code replaced by another code
	OpFlipRetryable    Operator = "flip-retryable"          // an engine error's data.retryable flipped
)

// Family groups operators.
type Family string

// The operator families.
const (
	FamilyMember   Family = "member"
	FamilyEnvelope Family = "envelope"
	FamilyFrame    Family = "frame"
	FamilyExchange Family = "exchange"
)

// Class says what the suite must do with a mutant.
type Class string

// The classes.
const (
	// MustDetect: the mutant breaks a schema or catalog rule; the suite
	// must fail a requirement.
	MustDetect Class = "must-detect"
	// Equivalent: no rule is broken; the suite may notice a content
	// change but must not be blamed for missing it.
	Equivalent Class = "equivalent"
	// MustPass: the mutant is legal and exercises the suite's own
	// tolerance; the suite must report no failure.
	MustPass Class = "must-pass"
	// BySchema: whether the mutant breaks the schema depends on the
	// message (a number at a bound, a member of one form of a union); the
	// proxy validates the mutated message and the runner classifies it as
	// MustDetect (invalid) or Equivalent (valid).
	BySchema Class = "by-schema"
)

// Scope says how often a mutant fires.
type Scope int

const (
	// Once: at the first eligible message of the run (or of the
	// connection, without a run record).
	Once Scope = iota
	// Every: at every eligible message (tolerance checks).
	Every
)

// Mutant is one mutation: an operator applied to one site, method or
// frame, with its classification from the specification.
type Mutant struct {
	// ID names the mutant: "op@kind:method#path" for member operators,
	// "op@response" for envelope operators, "op@frame" for frame
	// operators, "op@method" or "op@CODE" for exchange operators.
	ID     string
	Op     Operator
	Family Family
	Site   Site   // member operators
	Target string // exchange operators: the method or error code aimed at
	Class  Class
	// Rule is, for MustDetect, the rule the mutant breaks with its
	// requirement ID first ("WIRE-008: ..."); for Equivalent and MustPass
	// the reason it breaks none.
	Rule string
	// Level is the level of the rule's requirement: "MUST" or "SHOULD".
	Level string
	Scope Scope
}

// Requirement is the requirement ID the rule names ("" when none).
func (m Mutant) Requirement() string {
	id, _, ok := strings.Cut(m.Rule, ":")
	if ok && strings.Contains(id, "-") && !strings.Contains(id, " ") {
		return id
	}
	return ""
}

// siteCond is a condition on a site and operator, the key of the member
// classification table.
type siteCond int

const (
	condAny siteCond = iota
	condRequired
	condOptional
	condNullAllowed
	condClosed
	condOpen
	condConditional
	condEnum
	condMinLength
	condBounded
	condUnbounded
)

func (c siteCond) holds(s Site) bool {
	switch c {
	case condRequired:
		return s.Required
	case condOptional:
		return !s.Required
	case condNullAllowed:
		return s.allows("null")
	case condClosed:
		return s.Closed
	case condOpen:
		return !s.Closed
	case condConditional:
		return s.Conditional
	case condEnum:
		return len(s.Enum) > 0
	case condMinLength:
		return s.MinLength > 0
	case condBounded:
		return s.Bounded
	case condUnbounded:
		return !s.Bounded && len(s.Enum) == 0
	}
	return true
}

// memberRule is one row of the member classification table: the first row
// whose operator matches and whose conditions all hold classifies.
type memberRule struct {
	op    Operator
	when  []siteCond
	class Class
	rule  string // %s: the site's schema location
}

// memberRules classifies member mutants from the specification. Rows are
// tried in order.
var memberRules = []memberRule{
	{OpDrop, []siteCond{condConditional}, BySchema, "whether %s is required depends on the union's form"},
	{OpDrop, []siteCond{condRequired}, MustDetect, "WIRE-013: schema: %s is required"},
	// An optional member may still be required by an if/then rule
	// (actions with engine/perform, M2): the mutated message decides.
	{OpDrop, []siteCond{condOptional}, BySchema, "dropping the optional member %s: the schema decides (its if/then rules may require it)"},
	{OpNull, []siteCond{condNullAllowed}, Equivalent, "the schema allows null at %s"},
	{OpNull, []siteCond{condConditional}, BySchema, "null at %s: depends on the union's form"},
	{OpNull, []siteCond{condOptional}, MustDetect, "WIRE-012: null for the optional member %s (§1.6, D11)"},
	{OpNull, []siteCond{condRequired}, MustDetect, "WIRE-013: schema: null is not a type of %s (§1.6, D11)"},
	{OpUnknown, []siteCond{condClosed}, MustDetect, "WIRE-013: an unknown member in %s, which the schema closes (§1.6)"},
	{OpUnknown, []siteCond{condOpen}, Equivalent, "an unknown member in the open object %s is ignored (§1.6, D11)"},
	{OpRetype, nil, BySchema, "a changed JSON type at %s: the schema decides"},
	{OpEnumCase, []siteCond{condEnum}, MustDetect, "WIRE-013: schema: %s is an enum or const, compared exactly"},
	{OpInc, []siteCond{condEnum}, MustDetect, "WIRE-013: schema: %s is a const or enum number"},
	{OpDec, []siteCond{condEnum}, MustDetect, "WIRE-013: schema: %s is a const or enum number"},
	{OpInc, []siteCond{condBounded}, BySchema, "%s ± 1 against its bound: the schema decides"},
	{OpDec, []siteCond{condBounded}, BySchema, "%s ± 1 against its bound: the schema decides"},
	{OpInc, []siteCond{condUnbounded}, Equivalent, "any number is valid at %s (content checks may still notice)"},
	{OpDec, []siteCond{condUnbounded}, Equivalent, "any number is valid at %s (content checks may still notice)"},
	{OpEmpty, []siteCond{condEnum}, MustDetect, "WIRE-013: schema: \"\" is not among the values of %s"},
	{OpEmpty, []siteCond{condMinLength}, MustDetect, "WIRE-013: schema: %s has minLength ≥ 1"},
	{OpEmpty, nil, BySchema, "an empty string at %s: the schema (pattern) decides"},
}

// siteRequirement names the requirement that checks a site more precisely
// than WIRE-013 (run-wide schema validation): the manifest (MAN-001) and
// the error object (ERR-*), by path prefix.
var siteRequirement = []struct {
	kind   Kind
	method string
	prefix string
	req    string
}{
	{KindResult, "initialize", "/manifest", "MAN-001"},
	{KindResult, "initialize", "/protocolVersion", "LIFE-001"},
	{KindError, "", "/data/type", "ERR-001"},
	{KindError, "", "/data/code", "ERR-002"},
	{KindError, "", "/data/retryable", "ERR-002"},
	{KindError, "", "/data/category", "ERR-004"},
	{KindError, "", "/data/details", "ERR-004"},
	{KindError, "", "/data/stack", "ERR-005"},
	{KindError, "", "/data/errno", "ERR-005"},
	{KindError, "", "/data/cause", "ERR-005"},
	{KindError, "", "/message", "ERR-006"},
	{KindError, "", "/code", "WIRE-008"},
}

// classifyMember applies the table to a member mutant.
func classifyMember(op Operator, s Site) (Class, string, bool) {
	loc := s.Def + " " + orRoot(s.Path)
	for _, r := range memberRules {
		if r.op != op {
			continue
		}
		ok := true
		for _, c := range r.when {
			if !c.holds(s) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		rule := fmt.Sprintf(r.rule, loc)
		if r.class == MustDetect && strings.HasPrefix(rule, "WIRE-013:") {
			for _, sr := range siteRequirement {
				if sr.kind == s.Kind && sr.method == s.Method && strings.HasPrefix(s.Path, sr.prefix) {
					rule = sr.req + ":" + strings.TrimPrefix(rule, "WIRE-013:")
					break
				}
			}
		}
		return r.class, rule, true
	}
	return "", "", false
}

func orRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// applicable lists the member operators that make sense at a site.
func applicable(s Site) []Operator {
	var ops []Operator
	if s.Member {
		ops = append(ops, OpDrop)
	}
	if s.Path != "" || !s.allows("null") {
		ops = append(ops, OpNull)
	}
	if s.allows("object") && len(s.Types) > 0 {
		ops = append(ops, OpUnknown)
	}
	ops = append(ops, OpRetype)
	hasString := s.allows("string") && len(s.Types) > 0
	for _, e := range s.Enum {
		if str, ok := e.(string); ok && strings.ToUpper(str) != strings.ToLower(str) {
			ops = append(ops, OpEnumCase)
			break
		}
	}
	if s.allows("number") && len(s.Types) > 0 || numericEnum(s) {
		ops = append(ops, OpInc, OpDec)
	}
	if hasString {
		ops = append(ops, OpEmpty)
	}
	return ops
}

func numericEnum(s Site) bool {
	for _, e := range s.Enum {
		if _, ok := e.(float64); ok {
			return true
		}
	}
	return false
}

// fixed is the classification of a non-member operator.
type fixed struct {
	op     Operator
	family Family
	scope  Scope
	class  Class
	level  string
	rule   string
}

// fixedRules classifies envelope, frame and exchange operators, quoting
// the specification.
var fixedRules = []fixed{
	{OpIDType, FamilyEnvelope, Once, MustDetect, "MUST", "WIRE-008: the response id in another JSON type (§1.4: \"A receiver echoes an id unchanged, with the same JSON type and value\")"},
	{OpIDValue, FamilyEnvelope, Once, MustDetect, "MUST", "WIRE-008: the response id with another value: the request gets no response with its id"},
	{OpNoJSONRPC, FamilyEnvelope, Once, MustDetect, "MUST", "WIRE-008: a response without \"jsonrpc\": \"2.0\""},
	{OpNeither, FamilyEnvelope, Once, MustDetect, "MUST", "WIRE-008: a response with neither result nor error"},
	{OpBoth, FamilyEnvelope, Once, MustDetect, "MUST", "WIRE-008: a response with both result and error"},
	{OpUTF16Length, FamilyFrame, Once, MustDetect, "MUST", "WIRE-001: Content-Length counted in UTF-16 units, not bytes (§1.1: \"the length of the content part in bytes\")"},
	{OpCharLength, FamilyFrame, Once, MustDetect, "MUST", "WIRE-001: Content-Length counted in characters, not bytes (§1.1)"},
	{OpHeaderCase, FamilyFrame, Every, MustPass, "", "header name case: receivers SHOULD match field names without regard to letter case and the toolkit's receivers do (§1.1, D59); the suite's reader must accept it"},
	{OpExtraHeader, FamilyFrame, Once, MustDetect, "MUST", "WIRE-002: a header field other than Content-Length and Content-Type (§1.1: writers \"MUST NOT write other fields\")"},
	{OpConflictingLength, FamilyFrame, Once, MustDetect, "MUST", "WIRE-001: two different Content-Length fields: one of them is not the content's byte length"},
	{OpSplit, FamilyFrame, Every, MustPass, "", "splitting a frame is legal (§1.1: \"A receiver MUST accept a message that arrives in several reads (split anywhere, including inside the header part)\")"},
	{OpCoalesce, FamilyFrame, Every, MustPass, "", "two frames in one write are legal (§1.1: a receiver MUST accept \"several messages that arrive in one read\")"},
	{OpTruncate, FamilyFrame, Once, MustDetect, "MUST", "WIRE-001: a header followed by fewer bytes than Content-Length announces"},
	{OpDuplicate, FamilyExchange, Once, MustDetect, "MUST", "WIRE-008: a request gets two responses (\"exactly one response\"; §7.5: \"Every request gets exactly one response\")"},
	{OpReorder, FamilyExchange, Every, MustPass, "", "reordered responses are legal (§1.4: \"It MAY complete requests in any order, so responses MAY arrive in any order.\")"},
	{OpReorderShutdown, FamilyExchange, Once, MustDetect, "MUST", "LIFE-019: the shutdown response arrives before an earlier request's response (§2.4, D9: shutdown is \"Answered after every earlier request is answered\")"},
	{OpDelayAborted, FamilyExchange, Once, MustDetect, "MUST", "SIG-003: an aborted request answered 3 s after the abort (§7.7: \"A server MUST answer a request within 2000 ms of receiving a $/abort for a signal it carries\")"},
	// Every: the fault is an engine that waits before answering [] (one
	// delayed answer outside LOC-001's own query breaks no checked bound).
	{OpDelayEmptyLocate, FamilyExchange, Every, MustDetect, "MUST", "LOC-001: every zero-match engine/locate answered after 3 s (\"gets [] ... within 2000 ms\")"},
	{OpNeverSent, FamilyExchange, Once, MustDetect, "MUST", "WIRE-008: a request never gets a response (\"Every request gets exactly one response\")"},
	{OpLateNotification, FamilyExchange, Once, MustDetect, "MUST", "S2C-001: an attempt/* notification after the endAttempt response (§6.7: allowed from the receipt of startAttempt to the endAttempt response)"},
	{OpFlipRetryable, FamilyExchange, Once, MustDetect, "MUST", "ERR-003: retryable: true with a code other than NODE_STALE or FRAME_NOT_FOUND (§8.2: \"Only NODE_STALE and FRAME_NOT_FOUND may be retryable\")"},
}

// swapRules says what an engine error code swapped for another breaks:
// the requirement that provokes the code and checks it (§8.2 and the
// catalog rows naming the code).
var swapRules = []struct {
	code, to, level, rule string
}{
	{"CANCELLED", "ENGINE_FAILURE", "SHOULD", "SIG-006: an abort without reason answered with another code than CANCELLED (§7.5)"},
	{"INVALID_STATE", "ENGINE_FAILURE", "SHOULD", "LIFE-012: an overlapping startAttempt answered with another code than INVALID_STATE (§4.4); LIFE-009 accepts only INVALID_STATE for a refused second init"},
	{"UNSUPPORTED_CAPABILITY", "ENGINE_FAILURE", "MUST", "KEY-005: an undeliverable key or unsupported capability answered with another code (D64; LOC-012, LOC-014, ACT-004…)"},
	{"NOT_ACTIONABLE", "ENGINE_FAILURE", "MUST", "ACT-016: an action on a disabled node answered with another code than NOT_ACTIONABLE"},
	{"NODE_STALE", "ENGINE_FAILURE", "MUST", "ACT-009: a removed node's ref answered with another code than NODE_STALE"},
	{"FRAME_NOT_FOUND", "ENGINE_FAILURE", "MUST", "LOC-013: a frame expression matching no document answered with another code than FRAME_NOT_FOUND"},
	{"FRAME_AMBIGUOUS", "ENGINE_FAILURE", "MUST", "LOC-015: a frame selector matching two documents answered with another code than FRAME_AMBIGUOUS"},
	{"OPERATION_TIMEOUT", "ENGINE_FAILURE", "MUST", "ACT-016: an operation whose budget ran out answered with another code than OPERATION_TIMEOUT"},
	{"ACTION_MAY_HAVE_COMMITTED", "ENGINE_FAILURE", "", "no catalog row provokes ACTION_MAY_HAVE_COMMITTED; another non-retryable code breaks no checkable rule"},
	{"ENGINE_FAILURE", "INVALID_STATE", "", "ENGINE_FAILURE is \"anything else\" (§8.2): no catalog row requires it of a server"},
}

var (
	catalogMutants []Mutant
	catalogErr     error
	catalogByID    map[string]Mutant
)

// Mutants returns every mutant: the member operators at every site of
// Sites, the envelope, frame and exchange operators, sorted by ID.
func Mutants() ([]Mutant, error) {
	if catalogMutants != nil || catalogErr != nil {
		return catalogMutants, catalogErr
	}
	sites, err := Sites()
	if err != nil {
		catalogErr = err
		return nil, err
	}
	var out []Mutant
	for _, s := range sites {
		for _, op := range applicable(s) {
			class, rule, ok := classifyMember(op, s)
			if !ok {
				continue
			}
			m := Mutant{ID: string(op) + "@" + s.String(), Op: op, Family: FamilyMember, Site: s, Class: class, Rule: rule, Scope: Once}
			if class == MustDetect || class == BySchema {
				m.Level = "MUST"
			}
			out = append(out, m)
		}
	}
	for _, f := range fixedRules {
		switch f.family {
		case FamilyEnvelope:
			out = append(out, Mutant{ID: string(f.op) + "@response", Op: f.op, Family: f.family, Class: f.class, Rule: f.rule, Level: f.level, Scope: f.scope})
		case FamilyFrame:
			out = append(out, Mutant{ID: string(f.op) + "@frame", Op: f.op, Family: f.family, Class: f.class, Rule: f.rule, Level: f.level, Scope: f.scope})
		case FamilyExchange:
			if f.op == OpNeverSent {
				docs, err := loadDocs()
				if err != nil {
					catalogErr = err
					return nil, err
				}
				for _, method := range docs.answeredMethods() {
					out = append(out, Mutant{ID: string(f.op) + "@" + method, Op: f.op, Family: f.family, Target: method, Class: f.class, Rule: f.rule, Level: f.level, Scope: f.scope})
				}
				continue
			}
			out = append(out, Mutant{ID: string(f.op) + "@response", Op: f.op, Family: f.family, Class: f.class, Rule: f.rule, Level: f.level, Scope: f.scope})
		}
	}
	for _, s := range swapRules {
		class := MustDetect
		if s.level == "" {
			class = Equivalent
		}
		out = append(out, Mutant{ID: string(OpSwapCode) + "@" + s.code, Op: OpSwapCode, Family: FamilyExchange, Target: s.code,
			Class: class, Rule: s.rule, Level: s.level, Scope: Once})
	}
	out = append(out, Mutant{ID: string(OpFlipRetryable) + "@NODE_STALE", Op: OpFlipRetryable, Family: FamilyExchange, Target: "NODE_STALE",
		Class: Equivalent, Rule: "retryable flipped on NODE_STALE: it MAY be true or false (§8.2)", Scope: Once})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	catalogMutants = out
	catalogByID = map[string]Mutant{}
	for _, m := range out {
		catalogByID[m.ID] = m
	}
	return out, nil
}

// Lookup returns the mutant with the given ID. "none" is the unmutated
// relay.
func Lookup(id string) (Mutant, error) {
	if id == "none" || id == "" {
		return Mutant{ID: "none"}, nil
	}
	if _, err := Mutants(); err != nil {
		return Mutant{}, err
	}
	m, ok := catalogByID[id]
	if !ok {
		return Mutant{}, fmt.Errorf("mutate: unknown mutant %q (list them with e2e-mutate --list)", id)
	}
	return m, nil
}
