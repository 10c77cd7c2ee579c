package conformance

import (
	"runtime"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// controlOrMeta says which modifier ControlOrMeta must be delivered as on
// the staged keys screen (KEY-004), "" when the suite cannot tell, with
// why. §5.8's KeyModifier: "ControlOrMeta: Meta on macOS, Control
// elsewhere"; the manifest's platform is a free label ("web" names no
// operating system), so the suite asks two witnesses and demands Control
// only when both say the key lands elsewhere than on macOS: the keys
// screen's optional platform status (the page knows the system it runs
// on) shows KeysPlatformOther, and the engine was spawned by the suite on
// a host that is not macOS (over a socket the engine's host is unknown; a
// spawned engine may drive a browser on another machine, which the page
// then reports). The macOS side (Meta) is not demanded: no fault on this
// suite's hosts can show that check failing.
func (a *screenClient) controlOrMeta() (string, string) {
	n := fixture.KeysPlatform().Find(a.root())
	shown := ""
	if n != nil && n.Text != nil {
		shown = locate.Normalize(*n.Text)
	}
	switch {
	case shown != fixture.KeysPlatformOther:
		return "", "the keys screen does not show " + fixture.KeysPlatformOther + " (it shows " + orDefault(shown, "no platform status") + ")"
	case a.e.Transport != "spawn":
		return "", "the engine is reached over " + a.e.Transport + ", so its host's system is unknown"
	case runtime.GOOS == "darwin":
		return "", "the suite spawned the engine on macOS, while the keys screen says it runs elsewhere"
	}
	return wire.ModControl, ""
}

// expectControlOrMeta checks, after key was delivered with the keys
// screen's log holding before lines, that a ControlOrMeta in key came as
// com ("" when the suite cannot tell which, why says so: either is then
// taken, as expectKeyDelivered did).
func (a *screenClient) expectControlOrMeta(key, com, why string, before int) {
	k, err := wire.ParseKey(key)
	if err != nil || !slices.Contains(k.Modifiers, wire.ModControlOrMeta) {
		return
	}
	if com == "" {
		AddReportEntry("note", "keyboard/press "+key+": ControlOrMeta taken as Control or Meta: "+why)
		return
	}
	got := actTail(a.keyLog(), before)
	ev, ok := fixture.ParseKeyEvent(got[0])
	Expect(ok).To(BeTrue())
	want := fixture.KeyEventFor(k, com)
	have, need := slices.Clone(ev.Modifiers), slices.Clone(want.Modifiers)
	slices.Sort(have)
	slices.Sort(need)
	Expect(have).To(Equal(need), "keyboard/press %q: the keys screen shows %q and the engine runs on %s, so ControlOrMeta is %s there (§5.8: \"ControlOrMeta: Meta on macOS, Control elsewhere\"); want the keydown %q, got %q: another key was delivered",
		key, fixture.KeysPlatformOther, runtime.GOOS, com, want.String(), strings.TrimSpace(got[0]))
	a.e.observed("KEY-004", "ControlOrMeta delivered as "+com)
}
