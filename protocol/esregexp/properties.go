package esregexp

import (
	"strings"
	"sync"
	"unicode"
)

// esScripts lists every value of the Script and Script_Extensions properties
// that ECMAScript accepts in \p{Script=…} (PropertyValueAliases.txt as
// implemented by V8 in Node.js 20), one line of aliases per script. The test
// TestScriptNames checks it against testdata/scripts.json, written by
// testdata/gen_golden.mjs.
var esScripts = []string{
	"Adlam Adlm",
	"Ahom",
	"Anatolian_Hieroglyphs Hluw",
	"Arabic Arab",
	"Armenian Armn",
	"Avestan Avst",
	"Balinese Bali",
	"Bamum Bamu",
	"Bassa_Vah Bass",
	"Batak Batk",
	"Bengali Beng",
	"Beria_Erfe Berf",
	"Bhaiksuki Bhks",
	"Bopomofo Bopo",
	"Brahmi Brah",
	"Braille Brai",
	"Buginese Bugi",
	"Buhid Buhd",
	"Canadian_Aboriginal Cans",
	"Carian Cari",
	"Caucasian_Albanian Aghb",
	"Chakma Cakm",
	"Cham",
	"Cherokee Cher",
	"Chorasmian Chrs",
	"Common Zyyy",
	"Coptic Copt Qaac",
	"Cuneiform Xsux",
	"Cypriot Cprt",
	"Cypro_Minoan Cpmn",
	"Cyrillic Cyrl",
	"Deseret Dsrt",
	"Devanagari Deva",
	"Dives_Akuru Diak",
	"Dogra Dogr",
	"Duployan Dupl",
	"Egyptian_Hieroglyphs Egyp",
	"Elbasan Elba",
	"Elymaic Elym",
	"Ethiopic Ethi",
	"Garay Gara",
	"Georgian Geor",
	"Glagolitic Glag",
	"Gothic Goth",
	"Grantha Gran",
	"Greek Grek",
	"Gujarati Gujr",
	"Gunjala_Gondi Gong",
	"Gurmukhi Guru",
	"Gurung_Khema Gukh",
	"Hangul Hang",
	"Hani Han",
	"Hanifi_Rohingya Rohg",
	"Hanunoo Hano",
	"Hatran Hatr",
	"Hebrew Hebr",
	"Hiragana Hira",
	"Imperial_Aramaic Armi",
	"Inherited Qaai Zinh",
	"Inscriptional_Pahlavi Phli",
	"Inscriptional_Parthian Prti",
	"Javanese Java",
	"Kaithi Kthi",
	"Kannada Knda",
	"Katakana Kana",
	"Kawi",
	"Kayah_Li Kali",
	"Kharoshthi Khar",
	"Khitan_Small_Script Kits",
	"Khmer Khmr",
	"Khojki Khoj",
	"Khudawadi Sind",
	"Kirat_Rai Krai",
	"Laoo Lao",
	"Latin Latn",
	"Lepcha Lepc",
	"Limbu Limb",
	"Linear_A Lina",
	"Linear_B Linb",
	"Lisu",
	"Lycian Lyci",
	"Lydian Lydi",
	"Mahajani Mahj",
	"Makasar Maka",
	"Malayalam Mlym",
	"Mandaic Mand",
	"Manichaean Mani",
	"Marchen Marc",
	"Masaram_Gondi Gonm",
	"Medefaidrin Medf",
	"Meetei_Mayek Mtei",
	"Mende_Kikakui Mend",
	"Meroitic_Cursive Merc",
	"Meroitic_Hieroglyphs Mero",
	"Miao Plrd",
	"Modi",
	"Mongolian Mong",
	"Mroo Mro",
	"Multani Mult",
	"Myanmar Mymr",
	"Nabataean Nbat",
	"Nag_Mundari Nagm",
	"Nandinagari Nand",
	"New_Tai_Lue Talu",
	"Newa",
	"Nkoo Nko",
	"Nushu Nshu",
	"Nyiakeng_Puachue_Hmong Hmnp",
	"Ogham Ogam",
	"Ol_Chiki Olck",
	"Ol_Onal Onao",
	"Old_Hungarian Hung",
	"Old_Italic Ital",
	"Old_North_Arabian Narb",
	"Old_Permic Perm",
	"Old_Persian Xpeo",
	"Old_Sogdian Sogo",
	"Old_South_Arabian Sarb",
	"Old_Turkic Orkh",
	"Old_Uyghur Ougr",
	"Oriya Orya",
	"Osage Osge",
	"Osmanya Osma",
	"Pahawh_Hmong Hmng",
	"Palmyrene Palm",
	"Pau_Cin_Hau Pauc",
	"Phags_Pa Phag",
	"Phoenician Phnx",
	"Psalter_Pahlavi Phlp",
	"Rejang Rjng",
	"Runic Runr",
	"Samaritan Samr",
	"Saurashtra Saur",
	"Sharada Shrd",
	"Shavian Shaw",
	"Siddham Sidd",
	"Sidetic Sidt",
	"SignWriting Sgnw",
	"Sinhala Sinh",
	"Sogdian Sogd",
	"Sora_Sompeng Sora",
	"Soyombo Soyo",
	"Sundanese Sund",
	"Sunuwar Sunu",
	"Syloti_Nagri Sylo",
	"Syriac Syrc",
	"Tagalog Tglg",
	"Tagbanwa Tagb",
	"Tai_Le Tale",
	"Tai_Tham Lana",
	"Tai_Viet Tavt",
	"Tai_Yo Tayo",
	"Takri Takr",
	"Tamil Taml",
	"Tangsa Tnsa",
	"Tangut Tang",
	"Telugu Telu",
	"Thaana Thaa",
	"Thai",
	"Tibetan Tibt",
	"Tifinagh Tfng",
	"Tirhuta Tirh",
	"Todhri Todr",
	"Tolong_Siki Tols",
	"Toto",
	"Tulu_Tigalari Tutg",
	"Ugaritic Ugar",
	"Unknown Zzzz",
	"Vaii Vai",
	"Vithkuqi Vith",
	"Wancho Wcho",
	"Warang_Citi Wara",
	"Yezidi Yezi",
	"Yiii Yi",
	"Zanabazar_Square Zanb",
}

// esBinaryProperties lists the binary Unicode properties ECMAScript accepts
// in \p{…} (ES2024 table 68), with their aliases.
var esBinaryProperties = strings.Fields(`
	ASCII ASCII_Hex_Digit AHex Alphabetic Alpha Any Assigned Bidi_Control Bidi_C
	Bidi_Mirrored Bidi_M Case_Ignorable CI Cased Changes_When_Casefolded CWCF
	Changes_When_Casemapped CWCM Changes_When_Lowercased CWL
	Changes_When_NFKC_Casefolded CWKCF Changes_When_Titlecased CWT
	Changes_When_Uppercased CWU Dash Default_Ignorable_Code_Point DI Deprecated
	Dep Diacritic Dia Emoji Emoji_Component EComp Emoji_Modifier EMod
	Emoji_Modifier_Base EBase Emoji_Presentation EPres Extended_Pictographic
	ExtPict Extender Ext Grapheme_Base Gr_Base Grapheme_Extend Gr_Ext Hex_Digit
	Hex IDS_Binary_Operator IDSB IDS_Trinary_Operator IDST ID_Continue IDC
	ID_Start IDS Ideographic Ideo Join_Control Join_C Logical_Order_Exception LOE
	Lowercase Lower Math Noncharacter_Code_Point NChar Pattern_Syntax Pat_Syn
	Pattern_White_Space Pat_WS Quotation_Mark QMark Radical Regional_Indicator RI
	Sentence_Terminal STerm Soft_Dotted SD Terminal_Punctuation Term
	Unified_Ideograph UIdeo Uppercase Upper Variation_Selector VS White_Space
	space XID_Continue XIDC XID_Start XIDS`)

// esStringProperties lists the properties of strings ECMAScript accepts in
// \p{…} under the v flag only (ES2024 table 69).
var esStringProperties = strings.Fields(`
	Basic_Emoji Emoji_Keycap_Sequence RGI_Emoji_Modifier_Sequence
	RGI_Emoji_Flag_Sequence RGI_Emoji_Tag_Sequence RGI_Emoji_ZWJ_Sequence RGI_Emoji`)

// propNames indexes the tables above.
var propNames struct {
	once    sync.Once
	scripts map[string]string // any alias -> the name package unicode uses, or "" when it has none
	binary  map[string]bool
	strs    map[string]bool
}

func initPropNames() {
	propNames.once.Do(func() {
		propNames.scripts = make(map[string]string)
		for _, line := range esScripts {
			names := strings.Fields(line)
			goName := ""
			for _, n := range names {
				if unicode.Scripts[n] != nil {
					goName = n
				}
			}
			for _, n := range names {
				propNames.scripts[n] = goName
			}
		}
		propNames.binary = make(map[string]bool)
		for _, n := range esBinaryProperties {
			propNames.binary[n] = true
		}
		propNames.strs = make(map[string]bool)
		for _, n := range esStringProperties {
			propNames.strs[n] = true
		}
	})
}

// propKind classifies a \p{…} body.
type propKind int

const (
	propInvalid propKind = iota // not an ECMAScript property: a SyntaxError
	propSet                     // a set of code points RE2 knows
	propUnknown                 // valid ECMAScript, unknown to RE2 (set of code points)
	propStrings                 // a property of strings (v flag only)
)

// resolveProperty looks up the body of \p{body}. For propSet it returns the
// name RE2 accepts in \p{…} and the code points.
func resolveProperty(body string, vMode bool) (kind propKind, goName string, set runeSet) {
	initPropNames()
	name, value, hasValue := strings.Cut(body, "=")
	if hasValue {
		switch name {
		case "General_Category", "gc":
			return resolveCategory(value)
		case "Script", "sc", "Script_Extensions", "scx":
			goName, ok := propNames.scripts[value]
			switch {
			case !ok:
				return propInvalid, "", nil
			case goName == "" || name == "Script_Extensions" || name == "scx":
				return propUnknown, "", nil
			}
			return propSet, goName, tableSet(unicode.Scripts[goName])
		}
		return propInvalid, "", nil
	}
	if k, g, s := resolveCategory(name); k != propInvalid {
		return k, g, s
	}
	switch {
	case name == "Any":
		return propSet, "Any", fullSet
	case name == "ASCII":
		return propSet, "ASCII", runeSet{{0, 0x7F}}
	case name == "Assigned":
		return propSet, "Assigned", tableSet(unicode.Cn).complement(maxCodePoint)
	case propNames.binary[name]:
		return propUnknown, "", nil
	case vMode && propNames.strs[name]:
		return propStrings, "", nil
	}
	return propInvalid, "", nil
}

// resolveCategory looks up a General_Category value or alias.
func resolveCategory(v string) (propKind, string, runeSet) {
	if short, ok := unicode.CategoryAliases[v]; ok {
		v = short
	}
	if t := unicode.Categories[v]; t != nil {
		return propSet, v, tableSet(t)
	}
	return propInvalid, "", nil
}
