package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// serverEntry is one mcpServers entry.
type serverEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// checkArgs fails unless args is a command line e2e-mcp accepts.
func checkArgs(t *testing.T, where string, args []string) {
	t.Helper()
	if _, err := Parse(args, io.Discard); err != nil {
		t.Errorf("%s: args %q are not e2e-mcp's flags: %v", where, args, err)
	}
}

// TestHelp: --help prints every flag and an mcpServers snippet whose args
// are real flags.
func TestHelp(t *testing.T) {
	var out bytes.Buffer
	if _, err := Parse([]string{"--help"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	for _, f := range []string{"-config", "-target", "-headed", "-max-sessions", "-version"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("--help lacks %s:\n%s", f, out.String())
		}
	}
	if !strings.Contains(out.String(), MCPServersSnippet) {
		t.Errorf("--help lacks the mcpServers snippet:\n%s", out.String())
	}
	var doc struct {
		MCPServers map[string]serverEntry `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(MCPServersSnippet), &doc); err != nil || doc.MCPServers["e2e"].Command == "" {
		t.Fatalf("snippet %s: %v", MCPServersSnippet, err)
	}
	checkArgs(t, "--help snippet", doc.MCPServers["e2e"].Args)
}

// TestReadmeSetup parses the client set-up lines of mcp/README.md: every
// `claude mcp add` line, every mcpServers JSON block, the Codex TOML block
// (by shape: no TOML parser is a dependency) and the MCP Registry
// server.json (by shape), and checks their arguments are e2e-mcp's flags.
func TestReadmeSetup(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	blocks := regexp.MustCompile("(?s)```(\\w+)\\n(.*?)```").FindAllStringSubmatch(readme, -1)
	var claude, servers, codex, registry int
	for _, blk := range blocks {
		lang, body := blk[1], blk[2]
		switch {
		case lang == "sh" && strings.Contains(body, "claude mcp add"):
			for _, line := range strings.Split(body, "\n") {
				line, _, _ = strings.Cut(line, "#")
				_, after, ok := strings.Cut(line, "claude mcp add")
				if !ok {
					continue
				}
				_, cmd, ok := strings.Cut(after, " -- ")
				f := strings.Fields(cmd)
				if !ok || len(f) == 0 || !strings.HasSuffix(strings.Trim(f[0], `"`), "/e2e-mcp") {
					t.Errorf("claude line %q: no e2e-mcp after --", line)
					continue
				}
				checkArgs(t, line, f[1:])
				claude++
			}
		case lang == "json" && (strings.Contains(body, `"mcpServers"`) || strings.Contains(body, `"servers"`)):
			var doc struct {
				MCPServers map[string]serverEntry `json:"mcpServers"`
				Servers    map[string]serverEntry `json:"servers"` // VS Code
			}
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				t.Errorf("mcpServers block: %v\n%s", err, body)
				continue
			}
			if doc.MCPServers == nil {
				doc.MCPServers = map[string]serverEntry{}
			}
			for name, e := range doc.Servers {
				doc.MCPServers["vscode "+name] = e
			}
			for name, e := range doc.MCPServers {
				if !strings.HasSuffix(e.Command, "/e2e-mcp") {
					t.Errorf("server %q: command %q", name, e.Command)
				}
				checkArgs(t, "mcpServers "+name, e.Args)
				servers++
			}
		case lang == "toml":
			m := regexp.MustCompile(`(?m)^\[mcp_servers\.e2e\]\ncommand = "([^"]+)"\nargs = \[(.*)\]$`).FindStringSubmatch(body)
			if m == nil || !strings.HasSuffix(m[1], "/e2e-mcp") {
				t.Errorf("codex block is not [mcp_servers.e2e] with command and args:\n%s", body)
				continue
			}
			var args []string
			if err := json.Unmarshal([]byte("["+m[2]+"]"), &args); err != nil {
				t.Errorf("codex args %s: %v", m[2], err)
			}
			checkArgs(t, "codex", args)
			codex++
		case lang == "json" && strings.Contains(body, "server.schema.json"):
			var doc struct {
				Schema   string `json:"$schema"`
				Name     string `json:"name"`
				Version  string `json:"version"`
				Packages []struct {
					RegistryType     string                `json:"registryType"`
					Identifier       string                `json:"identifier"`
					Version          string                `json:"version"`
					FileSha256       string                `json:"fileSha256"`
					Transport        struct{ Type string } `json:"transport"`
					PackageArguments []struct {
						Type  string `json:"type"`
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"packageArguments"`
				} `json:"packages"`
			}
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				t.Errorf("server.json: %v", err)
				continue
			}
			if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(doc.Name) || doc.Version != Version || len(doc.Packages) == 0 {
				t.Errorf("server.json name %q, version %q (want %s), %d packages", doc.Name, doc.Version, Version, len(doc.Packages))
				continue
			}
			for _, p := range doc.Packages {
				if p.Transport.Type != "stdio" || p.Identifier == "" || p.RegistryType == "" || p.Version != Version ||
					p.RegistryType == "mcpb" && !regexp.MustCompile(`^[a-f0-9]{64}$`).MatchString(p.FileSha256) {
					t.Errorf("server.json package %+v", p)
				}
				var args []string
				for _, a := range p.PackageArguments {
					if a.Type != "named" {
						t.Errorf("server.json argument %+v is not named", a)
					}
					args = append(args, a.Name, a.Value)
				}
				checkArgs(t, "server.json", args)
			}
			registry++
		}
	}
	if claude == 0 || servers == 0 || codex == 0 || registry == 0 {
		t.Errorf("README set-up lines: %d claude, %d mcpServers, %d codex, %d server.json; want each", claude, servers, codex, registry)
	}
}
