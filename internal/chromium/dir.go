package chromium

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/internal/procs"
)

// DirPrefix starts the name of every engine-owned directory:
// e2e-chromium-<pid>-<start>-<random>, where pid is the owning process and
// start its start time (clock ticks since boot on Linux, 0 elsewhere), so
// that a sweep can tell a dead owner from a reused pid.
const DirPrefix = "e2e-chromium-"

// maxSocketPath is the longest path of a Unix socket (sun_path less its
// terminating NUL).
const maxSocketPath = 107

// leftoverWait bounds how long removing an instance waits for the
// Chromium helpers it kills to exit.
const leftoverWait = 2 * time.Second

// Dir is one engine's directory for the Chromiums it starts, under the
// temporary directory: each Chromium gets a directory of its own in it
// (NewInstance), holding its profile, its TMPDIR, its HOME and XDG
// directories and its crash dumps, so that nothing it writes lands
// anywhere else. Remove it when the engine ends; when the engine is
// killed before it can, the next NewDir in the same temporary directory
// sweeps it (Sweep).
type Dir struct {
	path string
	// short, when set, is a second engine-owned directory under
	// ShortParent, for what needs a short path (each Chromium's TMPDIR,
	// where its singleton socket goes, and XDG_RUNTIME_DIR): path is too
	// long for a Unix socket below it.
	short string
	n     atomic.Int64
}

// ShortParent is where a Dir whose own path is too long for a Unix socket
// below it puts its short directory (Dir.Short): a directory every Unix
// has, with a short path.
const ShortParent = "/tmp"

// socketSuffix is the longest path Chromium puts below its TMPDIR for its
// singleton socket, with the instance directory's name (at most 999
// instances per Dir) before it.
const socketSuffix = "/999/org.chromium.Chromium.XXXXXX/SingletonSocket"

// NewDir sweeps the directories of dead owners from parent ("" is
// os.TempDir()) and creates a new one owned by this process. When parent
// is too long for Chromium's singleton socket below it (a Unix socket's
// path has at most 107 bytes: a TMPDIR of 41 characters is already too
// long, macOS's default one is longer still), it also sweeps ShortParent
// and creates a second directory there, named the same way, for what
// needs a short path (Short); everything else stays under parent.
func NewDir(parent string) (*Dir, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	path, err := newOwnedDir(parent)
	if err != nil {
		return nil, err
	}
	d := &Dir{path: path}
	if !socketFits(path) {
		short, err := newOwnedDir(ShortParent)
		if err == nil && !socketFits(short) {
			os.Remove(short)
			err = fmt.Errorf("%s is too long too", short)
		}
		if err != nil {
			os.RemoveAll(path)
			return nil, fmt.Errorf("chromium directory: the temporary directory %s is too long for Chromium's singleton socket (%d bytes, at most %d), and no short directory could be made under %s: %w", parent, len(path)+len(socketSuffix), maxSocketPath, ShortParent, err)
		}
		d.short = short
	}
	return d, nil
}

// CheckDir reports whether NewDir(parent) can make a directory for
// Chromium, by making one and removing it at once: a missing or unwritable
// temporary directory is known before any Chromium is started.
func CheckDir(parent string) error {
	d, err := NewDir(parent)
	if err != nil {
		return err
	}
	return d.Remove()
}

// socketFits reports whether Chromium's singleton socket fits below dir.
func socketFits(dir string) bool {
	return len(dir)+len(socketSuffix) <= maxSocketPath
}

// newOwnedDir sweeps the directories of dead owners from parent and
// creates a new one there named for this process (DirPrefix).
func newOwnedDir(parent string) (string, error) {
	_, _ = Sweep(parent) // best effort: a leftover that cannot go must not stop a start
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("chromium directory: %w", err)
	}
	var start uint64
	if p, ok := procs.Self(); ok {
		start = p.Start
	}
	name := fmt.Sprintf("%s%d-%d-%s", DirPrefix, os.Getpid(), start, hex.EncodeToString(b[:]))
	path := filepath.Join(parent, name)
	if err := os.Mkdir(path, 0o700); err != nil {
		return "", fmt.Errorf("chromium directory: %w", err)
	}
	return path, nil
}

// Path returns the directory.
func (d *Dir) Path() string { return d.path }

// Short returns the directory for what needs a short path when Path is too
// long for it, "" otherwise.
func (d *Dir) Short() string { return d.short }

// Remove removes the directory (and the short one) and everything in it.
// Stop every Chromium started in it first.
func (d *Dir) Remove() error {
	var errs []error
	for _, p := range []string{d.path, d.short} {
		if p == "" {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove chromium directory: %w", err)
	}
	return nil
}

// Sweep removes from parent the engine-owned directories (DirPrefix) of
// owners that are gone: only real directories (never a symbolic link, which
// is not followed either), owned by this process's user, whose named owner
// process no longer runs (or whose pid now names a process started at
// another time). It returns the directories it removed.
func Sweep(parent string) ([]string, error) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", parent, err)
	}
	var removed []string
	var errs []error
	for _, e := range ents {
		pid, start, ok := parseDirName(e.Name())
		if !ok || pid == os.Getpid() {
			continue
		}
		path := filepath.Join(parent, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeType != fs.ModeDir || !ownedByMe(fi) {
			continue
		}
		if ownerAlive(pid, start) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, path)
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("sweep %s: %w", parent, errors.Join(errs...))
	}
	return removed, nil
}

// parseDirName reads the owner of an engine-owned directory's name.
func parseDirName(name string) (pid int, start uint64, ok bool) {
	rest, found := strings.CutPrefix(name, DirPrefix)
	if !found {
		return 0, 0, false
	}
	f := strings.Split(rest, "-")
	if len(f) != 3 || f[2] == "" {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return pid, start, true
}

// Instance is one Chromium's own directory inside a Dir.
type Instance struct {
	root    string
	short   string // the instance's directory in the Dir's short one; "" when root serves
	profile string
	env     []string
	flags   map[string]string
}

// NewInstance creates the directory of one more Chromium, <n>/ in d: it
// is the Chromium's TMPDIR and holds p/ (the user data directory), h/ (its
// HOME, with the XDG directories below it), r/ (XDG_RUNTIME_DIR) and c/
// (crash dumps, which are off). The names are short: Chromium's singleton
// socket goes in its TMPDIR, and a socket path has at most 107 bytes. When
// d has a short directory, <n>/ there is the TMPDIR and holds r/, the
// directories that hold sockets; the rest stays in <n>/ of d.
func (d *Dir) NewInstance() (*Instance, error) {
	name := strconv.FormatInt(d.n.Add(1), 10)
	root := filepath.Join(d.path, name)
	in := &Instance{root: root, profile: filepath.Join(root, "p")}
	tmp := root
	if d.short != "" {
		in.short = filepath.Join(d.short, name)
		tmp = in.short
	}
	home := filepath.Join(root, "h")
	vars := [][2]string{
		{"TMPDIR", tmp},
		{"HOME", home},
		{"XDG_CONFIG_HOME", filepath.Join(home, ".config")},
		{"XDG_CACHE_HOME", filepath.Join(home, ".cache")},
		{"XDG_DATA_HOME", filepath.Join(home, ".local", "share")},
		{"XDG_STATE_HOME", filepath.Join(home, ".local", "state")},
		{"XDG_RUNTIME_DIR", filepath.Join(tmp, "r")},
	}
	crash := filepath.Join(root, "c")
	mk := []string{in.profile, crash}
	for _, kv := range vars {
		mk = append(mk, kv[1])
		in.env = append(in.env, kv[0]+"="+kv[1])
	}
	for _, p := range mk {
		if err := os.MkdirAll(p, 0o700); err != nil {
			in.removeDirs()
			return nil, fmt.Errorf("chromium instance directory: %w", err)
		}
	}
	// A headed Chromium finds the X authority through HOME: keep the
	// user's.
	if os.Getenv("XAUTHORITY") == "" {
		if h, err := os.UserHomeDir(); err == nil {
			in.env = append(in.env, "XAUTHORITY="+filepath.Join(h, ".Xauthority"))
		}
	}
	in.flags = map[string]string{"user-data-dir": in.profile, "crash-dumps-dir": crash}
	return in, nil
}

// removeDirs removes the instance's directories.
func (in *Instance) removeDirs() error {
	var errs []error
	for _, p := range []string{in.root, in.short} {
		if p == "" {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Root returns the instance's directory.
func (in *Instance) Root() string { return in.root }

// Short returns the instance's directory in its Dir's short one (its
// TMPDIR), "" when the Dir has none.
func (in *Instance) Short() string { return in.short }

// Profile returns the instance's user data directory.
func (in *Instance) Profile() string { return in.profile }

// Options returns the allocator options that keep a Chromium inside the
// instance's directory: its user data directory, its environment
// (TMPDIR, HOME, XDG_*), crash reporting off and crash dumps inside.
func (in *Instance) Options() []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.Env(in.env...),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
	}
	for k, v := range in.flags {
		opts = append(opts, chromedp.Flag(k, v))
	}
	return opts
}

// Remove ends what is left of the instance's Chromium and removes its
// directory: the processes that outlived the main one and still name a
// path inside the instance's directory among their arguments (helpers with
// its profile, the crashpad handlers with their database in its crash
// dumps directory) are killed, and reaped when they came back to this
// process as a subreaper, as are the ones that had exited by themselves
// (procs.ReapAdopted). Call it once the Chromium's allocator is cancelled.
func (in *Instance) Remove() error {
	killLeftovers(in.root, time.Now().Add(leftoverWait))
	procs.ReapAdopted()
	if err := in.removeDirs(); err != nil {
		return fmt.Errorf("remove chromium instance directory: %w", err)
	}
	return nil
}

// Kill sends SIGKILL, at once and waiting for none, to the browser process
// pid (the process the allocator started: a distribution's wrapper script
// or the browser itself), every process below it, and every process that
// names a path inside the instance's directory among its arguments.
// Killing only the started process leaves the browser's helpers (zygotes,
// renderers, the GPU and network processes, which name no path of the
// instance) to notice their parent's death one after the other, tens of
// milliseconds, and whoever waits for the started process waits for them
// too (they hold its output pipes). Call it before the started process is
// killed: once it is gone its children are reparented and no longer found
// below it. The started process is still reaped by whoever started it, the
// rest by Remove. It returns how many processes it signalled.
func (in *Instance) Kill(pid int) int {
	self := os.Getpid()
	table := procs.List()
	targets := procs.Descendants(table, pid)
	for _, p := range table {
		if p.Pid == pid || namesPathIn(procs.Cmdline(p.Pid), in.root) {
			targets = append(targets, p)
		}
	}
	n := 0
	for _, p := range targets {
		if p.Pid != self && !p.Zombie() && procs.Kill(p.Key()) {
			n++
		}
	}
	return n
}

// killLeftovers kills the processes that have an argument naming a path
// inside root (see namesPathIn), until a pass finds none or deadline
// passes. Chromium's helpers carry --user-data-dir=<profile>; its two
// crashpad handlers (started by a double fork with setsid: neither in the
// browser's process tree nor in its group, nor in its session) carry only
// --database=<crash dumps dir> and --metrics-dir, both inside root.
func killLeftovers(root string, deadline time.Time) {
	self := os.Getpid()
	for {
		var left []procs.Proc
		for _, p := range procs.List() {
			if p.Pid == self || (p.Zombie() && p.PPid != self) {
				continue
			}
			if namesPathIn(procs.Cmdline(p.Pid), root) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return
		}
		procs.KillAndReap(left, deadline)
	}
}

// namesPathIn reports whether one of args is, or has as its value (the
// part after the first '=' of --name=value), root or a path below it. The
// path is taken as it is written (made clean, not resolved): Chromium
// passes on the absolute paths it was given.
func namesPathIn(args []string, root string) bool {
	root = filepath.Clean(root)
	if !filepath.IsAbs(root) || root == string(filepath.Separator) {
		return false
	}
	for _, a := range args {
		p := a
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok {
				p = v
			}
		}
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
