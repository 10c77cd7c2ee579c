package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/e2e-conform/toolkit/internal/buildinfo"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// provenance describes a run of cfg started at start.
func provenance(cfg Config, start time.Time) *report.Provenance {
	if start.IsZero() {
		start = time.Now() // the run ended before its first node
	}
	bi := buildinfo.Read()
	p := &report.Provenance{SuiteVersion: report.SuiteVersion, SuiteModule: bi.Module, SuiteBuild: bi.Version, SuiteRevision: bi.Revision, SuiteModified: bi.Modified,
		GoVersion: bi.GoVersion, SpecVersion: strconv.Itoa(wire.ProtocolVersion), Catalog: catalogDigest(),
		EngineAddress: cfg.Connect, Host: runtime.GOOS + "/" + runtime.GOARCH, StartedAt: start.UTC()}
	if len(cfg.Spawn) > 0 {
		p.EngineCommand = maskCommand(cfg.Spawn)
		if path, err := exec.LookPath(cfg.Spawn[0]); err == nil {
			if abs, err := filepath.Abs(path); err == nil {
				path = abs
			}
			p.EngineBinary = path
			p.EngineSHA256 = fileSHA256(path)
		}
		if script := interpretedScript(cfg.Spawn); script != "" {
			p.EngineScript, p.EngineScriptSHA256 = script, fileSHA256(script)
		}
	}
	return p
}

// interpreters are the programs whose first argument that is no option is
// the program they run, by base name (a version suffix such as python3.11
// or perl5.36 is ignored: interpreterName).
func interpreters() []string {
	return []string{"python", "python3", "python2", "pypy", "pypy3", "node", "nodejs", "ruby", "perl", "php",
		"sh", "bash", "dash", "zsh", "ksh", "lua", "Rscript", "tclsh"}
}

// interpreterName is the base name of program without a version suffix
// ("/usr/bin/python3.11" → "python3").
func interpreterName(program string) string {
	name := filepath.Base(program)
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	return name
}

// interpretedScript returns the absolute path of the script an interpreter
// command runs (python3 -u engine.py → engine.py), "" when the program is
// no interpreter or its first argument that is no option is no regular
// file (python3 -m engine, sh -c '…').
func interpretedScript(command []string) string {
	if len(command) < 2 || !slices.Contains(interpreters(), interpreterName(command[0])) {
		return ""
	}
	for _, a := range command[1:] {
		if strings.HasPrefix(a, "-") {
			if a == "-c" || a == "-e" || a == "-m" || a == "--eval" {
				return "" // code or a module, not a file
			}
			continue
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			return ""
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
			return ""
		}
		return abs
	}
	return ""
}

// fileSHA256 is the hex SHA-256 of the regular file at path, "" when it
// cannot be read.
func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// catalogDigest is the SHA-256 of the catalog's rows, in order.
func catalogDigest() string {
	h := sha256.New()
	for _, r := range catalog.All() {
		io.WriteString(h, r.ID+"\x1f"+string(r.Level)+"\x1f"+r.AppliesWhen+"\x1f"+strconv.FormatBool(r.Fixture)+"\x1f"+r.Statement+"\x1e")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// selectionOf describes cfg's selection; specs are the run's specs.
func selectionOf(cfg Config, specs []report.SpecResult, held func(text string, runWide bool) bool) *report.Selection {
	if len(cfg.Only) == 0 && len(cfg.Skip) == 0 && !cfg.Shard.Sharded() {
		return nil
	}
	sel := &report.Selection{Only: cfg.Only, Skip: cfg.Skip}
	if cfg.Shard.Sharded() {
		sh := cfg.Shard
		sel.Shard = &sh
		sel.Claimed = cfg.ShardClaims != ""
		for _, s := range specs {
			if held(s.Text, s.RunWide) {
				sel.Held = append(sel.Held, s.Text)
			}
		}
	}
	return sel
}
