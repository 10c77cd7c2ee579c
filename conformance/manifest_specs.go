package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Manifest: spec §3; catalog MAN (MAN-009 is the toolkit's).
//
// The specs read the manifest off a raw initialize result, not the decoded
// one discovery keeps: a decoded manifest cannot tell an empty list from an
// absent one, nor see an unknown member.
//
// Note: discovery (suite.go) opens a client connection, which refuses an
// invalid manifest; the run then reports LIFE-001 failed and every spec not
// verified, so MAN-001 and MAN-005..008 can fail here only for an engine
// whose announced manifest the client accepts. They check the rules on
// their own, for a discovery that lets them run.
func manifestSpecs(s *suite) {
	s.spec("the initialize manifest, for role run and role worker, validates against §3.8 with rules M1–M13",
		[]string{"MAN-001"}, func(ctx context.Context, e *runEnv) {
			for _, role := range []string{wire.RoleRun, wire.RoleWorker} {
				raw := announced(ctx, e, role)
				if err := e.Schemas.ValidateManifest(raw); err != nil {
					failf("the manifest announced to role %s: want a valid manifest, got %v: %s", role, err, clip(string(raw)))
				}
			}
		})

	s.spec("every listed method, sent with params {}, gets a response that is not -32601 or -32002",
		[]string{"MAN-002"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			for i, m := range e.Manifest.Methods {
				f, err := r.Call(ctx, fmt.Sprint(i+1), m, `{}`)
				Expect(err).NotTo(HaveOccurred(), "waiting for the answer to %s", m)
				if eo := f.Error(); eo != nil {
					Expect(eo.Code).NotTo(BeElementOf(int64(wire.CodeMethodNotFound), int64(wire.CodeNotInitialized)),
						"%s is listed: want it answered, got %d %q", m, eo.Code, eo.Message)
				}
			}
		})

	// An engine that lists every method leaves nothing to check; the
	// requirement then holds as stated and the spec passes.
	s.spec("every ENGINE_METHODS member the manifest does not list gets -32601",
		[]string{"MAN-003"}, func(ctx context.Context, e *runEnv) {
			r := e.initialized(ctx)
			for i, m := range wire.EngineMethods() {
				if e.Manifest.Lists(m) {
					continue
				}
				f, err := r.Call(ctx, fmt.Sprint(i+1), m, `{}`)
				Expect(err).NotTo(HaveOccurred(), "waiting for the answer to %s", m)
				expectCode(f, wire.CodeMethodNotFound, m+", which the manifest does not list")
			}
		})

	s.spec("two connections to the server announce manifests equal under §3.6, and equal to the one discovered",
		[]string{"MAN-004"}, func(ctx context.Context, e *runEnv) {
			// Both connections stay open: two processes (spawn) or two
			// simultaneous sockets.
			var ms []wire.Manifest
			for i := 0; i < 2; i++ {
				var m wire.Manifest
				raw := announced(ctx, e, wire.RoleWorker)
				Expect(json.Unmarshal(raw, &m)).To(Succeed(), "decoding the manifest of connection %d", i+1)
				ms = append(ms, m)
			}
			Expect(client.Diff(ms[0], ms[1])).To(BeEmpty(), "the second connection's manifest differs from the first's")
			Expect(client.Diff(e.Manifest, ms[0])).To(BeEmpty(), "a later connection's manifest differs from the one discovered")
		})

	s.spec("engine/perform comes with engine/observe and valid actions, engine/performAt with engine/observe and valid pointerActions, and neither list without its method",
		[]string{"MAN-005"}, func(ctx context.Context, e *runEnv) {
			m := announcedMembers(ctx, e)
			var broken []string
			for _, c := range []struct {
				method, list string
				kinds        []string
			}{
				{wire.MethodPerform, "actions", wire.LocatorActionKinds()},
				{wire.MethodPerformAt, "pointerActions", wire.PointerActionKinds()},
			} {
				listed := m.lists(c.method)
				raw, present := m.members[c.list]
				switch {
				case listed && !m.lists(wire.MethodObserve):
					broken = append(broken, c.method+" without engine/observe")
				case !listed && present:
					broken = append(broken, c.list+" without "+c.method)
				}
				if !listed {
					continue
				}
				if !present {
					broken = append(broken, c.method+" without "+c.list)
					continue
				}
				if why := kindList(raw, c.kinds); why != "" {
					broken = append(broken, c.list+" "+why)
				}
			}
			Expect(broken).To(BeEmpty(), "the announced manifest breaks M2–M5: %s", strings.Join(broken, "; "))
		})

	s.spec("engine/locate and every keyboard/* method come with engine/observe, keyboard/type and keyboard/press together, keyboard/dismiss only with both",
		[]string{"MAN-006"}, func(ctx context.Context, e *runEnv) {
			m := announcedMembers(ctx, e)
			var broken []string
			for _, meth := range []string{wire.MethodLocate, wire.MethodType, wire.MethodPress, wire.MethodDismiss} {
				if m.lists(meth) && !m.lists(wire.MethodObserve) {
					broken = append(broken, meth+" without engine/observe")
				}
			}
			if m.lists(wire.MethodType) != m.lists(wire.MethodPress) {
				broken = append(broken, "only one of keyboard/type and keyboard/press")
			}
			if m.lists(wire.MethodDismiss) && !(m.lists(wire.MethodType) && m.lists(wire.MethodPress)) {
				broken = append(broken, "keyboard/dismiss without keyboard/type and keyboard/press")
			}
			Expect(broken).To(BeEmpty(), "the announced manifest breaks M6–M7: %s", strings.Join(broken, "; "))
		})

	s.spec("state/capture and state/restore come together; artifacts/startVideo and artifacts/stopVideo come together and only with artifacts/screenshot",
		[]string{"MAN-007"}, func(ctx context.Context, e *runEnv) {
			m := announcedMembers(ctx, e)
			var broken []string
			if m.lists(wire.MethodCapture) != m.lists(wire.MethodRestore) {
				broken = append(broken, "only one of state/capture and state/restore")
			}
			if m.lists(wire.MethodStartVideo) != m.lists(wire.MethodStopVideo) {
				broken = append(broken, "only one of artifacts/startVideo and artifacts/stopVideo")
			}
			if (m.lists(wire.MethodStartVideo) || m.lists(wire.MethodStopVideo)) && !m.lists(wire.MethodScreenshot) {
				broken = append(broken, "a video method without artifacts/screenshot")
			}
			Expect(broken).To(BeEmpty(), "the announced manifest breaks M8–M9: %s", strings.Join(broken, "; "))
		})

	s.spec("tapModifiers is a boolean, and true only with engine/perform",
		[]string{"MAN-008"}, func(ctx context.Context, e *runEnv) {
			m := announcedMembers(ctx, e)
			raw, present := m.members["tapModifiers"]
			if !present {
				return // absent on this connection: MAN-004 compares connections
			}
			v := string(raw)
			Expect(v).To(BeElementOf("true", "false"), "tapModifiers: want a boolean, got %s", v)
			if v == "true" {
				Expect(m.lists(wire.MethodPerform)).To(BeTrue(), "tapModifiers: true without engine/perform")
			}
		})
}

// announced runs initialize as role on a new raw connection and returns the
// manifest of the result as it was written.
func announced(ctx context.Context, e *runEnv, role string) json.RawMessage {
	r := e.raw(ctx)
	f, err := r.Call(ctx, "0", wire.MethodInitialize, initializeParams(role))
	Expect(err).NotTo(HaveOccurred(), "initialize as %s", role)
	var res struct {
		Manifest json.RawMessage `json:"manifest"`
	}
	Expect(json.Unmarshal(expectResult(f, "initialize as "+role), &res)).To(Succeed(), "decoding the initialize result")
	Expect(res.Manifest).NotTo(BeEmpty(), "the initialize result has no manifest")
	return res.Manifest
}

// manifestMembers is a manifest as written: its members, and its methods.
type manifestMembers struct {
	members map[string]json.RawMessage
	methods []string
}

func (m manifestMembers) lists(method string) bool { return slices.Contains(m.methods, method) }

func announcedMembers(ctx context.Context, e *runEnv) manifestMembers {
	raw := announced(ctx, e, wire.RoleWorker)
	m := manifestMembers{}
	Expect(json.Unmarshal(raw, &m.members)).To(Succeed(), "the manifest is not a JSON object: %s", clip(string(raw)))
	Expect(json.Unmarshal(m.members["methods"], &m.methods)).To(Succeed(), "methods is not an array of strings: %s", clip(string(m.members["methods"])))
	return m
}

// kindList says what is wrong with a kind list (non-empty, duplicate-free,
// over kinds), "" when nothing is.
func kindList(raw json.RawMessage, kinds []string) string {
	var l []string
	if err := json.Unmarshal(raw, &l); err != nil || l == nil {
		return "is not an array of strings: " + clip(string(raw))
	}
	if len(l) == 0 {
		return "is empty"
	}
	seen := map[string]bool{}
	for _, k := range l {
		if !slices.Contains(kinds, k) {
			return fmt.Sprintf("holds %q, not a kind of %s", k, strings.Join(kinds, ", "))
		}
		if seen[k] {
			return fmt.Sprintf("holds %q twice", k)
		}
		seen[k] = true
	}
	return ""
}
