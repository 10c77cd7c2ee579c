package wire

// The field limits of a SemanticNode (spec §5.4, OBS-005, D45): counted in
// UTF-16 code units, a longer value cut by keeping its start without
// splitting a surrogate pair. Every engine, checker and generated script
// (reference-engine/inpage's reader.js, `go generate`) takes them from
// here.
const (
	// NameMaxUnits bounds SemanticNode.name.
	NameMaxUnits = 256
	// TextMaxUnits bounds SemanticNode.text, value and selection.
	TextMaxUnits = 512
)
