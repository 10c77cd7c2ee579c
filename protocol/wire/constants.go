package wire

// ProtocolVersion is the wire protocol version exchanged in initialize (spec §0.1).
const ProtocolVersion = 1

// SPIVersion is the engine contract version a manifest declares (spec §0.1).
const SPIVersion = 1

// MaxMessageBytes is the largest content part a peer may send and every
// receiver must accept: 64 MiB (spec §1.2, D4).
const MaxMessageBytes = 64 << 20

// MaxHeaderBytes bounds the header part of a frame, its final CRLFCRLF
// included (spec §1.1, D5).
const MaxHeaderBytes = 4096

// Method names of the protocol (spec §1.7, §3.2).
const (
	MethodInitialize    = "initialize"
	MethodInitialized   = "initialized"
	MethodShutdown      = "shutdown"
	MethodExit          = "exit"
	MethodAbort         = "$/abort"
	MethodDeriveSecret  = "attempt/deriveSecret"
	MethodResolveSecret = "attempt/resolveSecret"

	MethodEngineLog   = "engine/log"
	MethodAppLog      = "attempt/appLog"
	MethodNavigation  = "attempt/navigation"
	MethodEnvironment = "attempt/environment"
	MethodScreen      = "attempt/screen"

	MethodObserve       = "engine/observe"
	MethodLocate        = "engine/locate"
	MethodPerform       = "engine/perform"
	MethodPerformAt     = "engine/performAt"
	MethodType          = "keyboard/type"
	MethodPress         = "keyboard/press"
	MethodDismiss       = "keyboard/dismiss"
	MethodCapture       = "state/capture"
	MethodRestore       = "state/restore"
	MethodScreenshot    = "artifacts/screenshot"
	MethodStartVideo    = "artifacts/startVideo"
	MethodStopVideo     = "artifacts/stopVideo"
	MethodOpen          = "session/open"
	MethodBack          = "session/back"
	MethodRestart       = "session/restart"
	MethodReset         = "session/reset"
	MethodPrepare       = "lifecycle/prepare"
	MethodFinish        = "lifecycle/finish"
	MethodInit          = "lifecycle/init"
	MethodStartAttempt  = "lifecycle/startAttempt"
	MethodSettleAttempt = "lifecycle/settleAttempt"
	MethodEndAttempt    = "lifecycle/endAttempt"
	MethodDispose       = "lifecycle/dispose"
)

// EngineMethods returns ENGINE_METHODS, the 23 engine methods in canonical
// order (spec §3.2). The slice is new on every call.
func EngineMethods() []string {
	return []string{
		MethodObserve, MethodLocate, MethodPerform, MethodPerformAt,
		MethodType, MethodPress, MethodDismiss, MethodCapture, MethodRestore,
		MethodScreenshot, MethodStartVideo, MethodStopVideo,
		MethodOpen, MethodBack, MethodRestart, MethodReset,
		MethodPrepare, MethodFinish, MethodInit, MethodStartAttempt,
		MethodSettleAttempt, MethodEndAttempt, MethodDispose,
	}
}

// IsEngineMethod reports whether m is a member of ENGINE_METHODS.
func IsEngineMethod(m string) bool { return MethodIndex(m) >= 0 }

// MethodIndex is m's position in ENGINE_METHODS order, or -1.
func MethodIndex(m string) int {
	for i, x := range EngineMethods() {
		if x == m {
			return i
		}
	}
	return -1
}

// IsOperationMethod reports whether m is one of the 16 operation methods,
// which carry an operation (spec §3.2).
func IsOperationMethod(m string) bool {
	i := MethodIndex(m)
	return i >= 0 && i < 16
}

// LocatorActionKind names a node action (spec §3.7).
type LocatorActionKind = string

// PointerActionKind names a pointer action (spec §3.7).
type PointerActionKind = string

// Locator action kinds (LOCATOR_ACTION_KINDS, spec §3.7).
const (
	ActionTap            LocatorActionKind = "tap"
	ActionDoubleTap      LocatorActionKind = "doubleTap"
	ActionSecondaryTap   LocatorActionKind = "secondaryTap"
	ActionLongPress      LocatorActionKind = "longPress"
	ActionFill           LocatorActionKind = "fill"
	ActionClear          LocatorActionKind = "clear"
	ActionPress          LocatorActionKind = "press"
	ActionCheck          LocatorActionKind = "check"
	ActionUncheck        LocatorActionKind = "uncheck"
	ActionFocus          LocatorActionKind = "focus"
	ActionHover          LocatorActionKind = "hover"
	ActionScrollIntoView LocatorActionKind = "scrollIntoView"
	ActionSelectOption   LocatorActionKind = "selectOption"
	ActionSetInputFiles  LocatorActionKind = "setInputFiles"
	ActionDragTo         LocatorActionKind = "dragTo"
	ActionSwipe          LocatorActionKind = "swipe"
	// ActionSwipeTo exists only as a pointer action.
	ActionSwipeTo PointerActionKind = "swipeTo"
)

// LocatorActionKinds returns LOCATOR_ACTION_KINDS in canonical order.
func LocatorActionKinds() []string {
	return []string{ActionTap, ActionDoubleTap, ActionSecondaryTap, ActionLongPress, ActionFill,
		ActionClear, ActionPress, ActionCheck, ActionUncheck, ActionFocus, ActionHover,
		ActionScrollIntoView, ActionSelectOption, ActionSetInputFiles, ActionDragTo, ActionSwipe}
}

// PointerActionKinds returns POINTER_ACTION_KINDS in canonical order.
func PointerActionKinds() []string {
	return []string{ActionTap, ActionDoubleTap, ActionSecondaryTap, ActionLongPress, ActionHover,
		ActionDragTo, ActionSwipe, ActionSwipeTo}
}

// Roles of a connection (spec §2.8).
const (
	RoleRun    = "run"
	RoleWorker = "worker"
)

// JSON-RPC and protocol error codes (spec §2.7, §8, D6).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeNotInitialized = -32002
	CodeEngineError    = -32000
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
