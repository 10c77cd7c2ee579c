// Package guide holds the writing guide the MCP host serves as resources
// (spec mcp.md §2.7): e2e://guide (SKILL.md without its front-matter) and
// one topic per file of references/.
package guide

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed skill
var files embed.FS

// Guide returns SKILL.md without its YAML front-matter.
func Guide() string {
	b, err := files.ReadFile("skill/SKILL.md")
	if err != nil {
		return "The skill is not part of this installation."
	}
	s := string(b)
	if strings.HasPrefix(s, "---\n") {
		if i := strings.Index(s[4:], "\n---\n"); i >= 0 {
			s = s[4+i+5:]
		}
	}
	return strings.TrimLeft(s, "\n")
}

// Topics lists the topic names, sorted.
func Topics() []string {
	ents, _ := fs.ReadDir(files, "skill/references")
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// TopicError is an unknown topic (code UNKNOWN_TOPIC).
type TopicError struct{ Topic string }

func (e *TopicError) Error() string {
	return fmt.Sprintf("UNKNOWN_TOPIC: unknown topic %q; topics: %s", e.Topic, strings.Join(Topics(), ", "))
}

// Topic returns one topic's markdown.
func Topic(name string) (string, error) {
	if strings.ContainsAny(name, "/\\.") || name == "" {
		return "", &TopicError{Topic: name}
	}
	b, err := files.ReadFile("skill/references/" + name + ".md")
	if err != nil {
		return "", &TopicError{Topic: name}
	}
	return string(b), nil
}
