package webengine

import (
	"sync"

	"github.com/chromedp/cdproto/page"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// dialogTypes are the JavaScript dialog types web-engine §2.11 names; a
// dialog of any other type is an ENGINE_FAILURE.
var dialogTypes = map[page.DialogType]bool{
	page.DialogTypeAlert:        true,
	page.DialogTypeConfirm:      true,
	page.DialogTypePrompt:       true,
	page.DialogTypeBeforeunload: true,
}

// dialogMessageLimit bounds the dialog's message in the error (UTF-8
// bytes; an app may put a whole document in an alert).
const dialogMessageLimit = 2000

// dialogError is the failure an unhandled dialog of type typ with message
// msg latches, and the app log level that reports it: INVALID_STATE
// "unhandled <type> dialog: <message>" for the four known types (warning),
// ENGINE_FAILURE for any other (error).
func dialogError(typ page.DialogType, msg string) (*engineerr.EngineError, string) {
	if len(msg) > dialogMessageLimit {
		msg = engineerr.CutUTF8(msg, dialogMessageLimit) + "…"
	}
	if !dialogTypes[typ] {
		return engineerr.New(engineerr.EngineFailure, "dialog of unknown type %q: %s", string(typ), msg), "error"
	}
	return engineerr.New(engineerr.InvalidState, "unhandled %s dialog: %s", string(typ), msg), "warning"
}

// dialogLatch holds the failure of a dialog nobody handled until the next
// operation takes it: the first one wins, and it is thrown once.
type dialogLatch struct {
	mu  sync.Mutex
	err error
}

// latch keeps err unless a failure is already held.
func (d *dialogLatch) latch(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = err
	}
}

// take returns the failure held (nil when none) and clears it.
func (d *dialogLatch) take() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.err
	d.err = nil
	return err
}
