package server

import (
	"slices"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// DescribeEngine returns the manifest ServeEngine announces for e (spec
// §3.5): e's static members, the method of every capability interface e
// implements, and lifecycle/startAttempt and lifecycle/endAttempt always, in
// ENGINE_METHODS order (D14). tapModifiers false is absent.
//
// Implements: MAN-004, MAN-009.
func DescribeEngine(e Engine) wire.Manifest {
	info := e.Info()
	m := wire.Manifest{
		Name: info.Name, Version: info.Version, SPIVersion: wire.SPIVersion, Platform: info.Platform,
		Actions: slices.Clone(info.Actions), PointerActions: slices.Clone(info.PointerActions),
		TapModifiers: info.TapModifiers,
	}
	if info.Workers > 0 {
		w := info.Workers
		m.Workers = &w
	}
	has := map[string]bool{wire.MethodStartAttempt: true, wire.MethodEndAttempt: true}
	if _, ok := e.(Observer); ok {
		has[wire.MethodObserve] = true
	}
	if _, ok := e.(Locator); ok {
		has[wire.MethodLocate] = true
	}
	if _, ok := e.(Performer); ok {
		has[wire.MethodPerform] = true
	}
	if _, ok := e.(PointerPerformer); ok {
		has[wire.MethodPerformAt] = true
	}
	if _, ok := e.(Keyboard); ok {
		has[wire.MethodType], has[wire.MethodPress] = true, true
	}
	if _, ok := e.(KeyboardDismisser); ok {
		has[wire.MethodDismiss] = true
	}
	if _, ok := e.(StateKeeper); ok {
		has[wire.MethodCapture], has[wire.MethodRestore] = true, true
	}
	if _, ok := e.(Screenshotter); ok {
		has[wire.MethodScreenshot] = true
	}
	if _, ok := e.(VideoRecorder); ok {
		has[wire.MethodStartVideo], has[wire.MethodStopVideo] = true, true
	}
	if _, ok := e.(SessionOpener); ok {
		has[wire.MethodOpen] = true
	}
	if _, ok := e.(SessionBacker); ok {
		has[wire.MethodBack] = true
	}
	if _, ok := e.(SessionRestarter); ok {
		has[wire.MethodRestart] = true
	}
	if _, ok := e.(SessionResetter); ok {
		has[wire.MethodReset] = true
	}
	if _, ok := e.(Preparer); ok {
		has[wire.MethodPrepare] = true
	}
	if _, ok := e.(Finisher); ok {
		has[wire.MethodFinish] = true
	}
	if _, ok := e.(Initializer); ok {
		has[wire.MethodInit] = true
	}
	if _, ok := e.(AttemptSettler); ok {
		has[wire.MethodSettleAttempt] = true
	}
	if _, ok := e.(Disposer); ok {
		has[wire.MethodDispose] = true
	}
	for _, method := range wire.EngineMethods() {
		if has[method] {
			m.Methods = append(m.Methods, method)
		}
	}
	return m
}

// describeChecked describes e and validates the manifest, so that an engine
// whose members break the dependency rules is refused before it serves.
//
// Implements: MAN-001, MAN-005, MAN-006, MAN-007, MAN-008.
func describeChecked(e Engine, set *schema.Set) (wire.Manifest, error) {
	m := DescribeEngine(e)
	raw, err := m.MarshalJSON()
	if err != nil {
		return m, err
	}
	if err := set.ValidateManifest(raw); err != nil {
		return m, engineerr.InvalidConfig("engine %q: %v", m.Name, err)
	}
	return m, nil
}
