package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/mcp/catalog"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// fakeDriver records what a tool asked for.
type fakeDriver struct {
	m   wire.Manifest
	got []string
}

func (f *fakeDriver) note(s string) error { f.got = append(f.got, s); return nil }

func (f *fakeDriver) Manifest() wire.Manifest { return f.m }
func (f *fakeDriver) Perform(_ context.Context, id string, la wire.LocatorAction) error {
	return f.note("perform " + id + " " + la.Kind + " " + la.Key + la.Value + la.Option.Text)
}
func (f *fakeDriver) Type(_ context.Context, v string, r bool) error {
	if r {
		return f.note("type replace " + v)
	}
	return f.note("type " + v)
}
func (f *fakeDriver) Press(_ context.Context, k string) error    { return f.note("press " + k) }
func (f *fakeDriver) Dismiss(context.Context) error              { return f.note("dismiss") }
func (f *fakeDriver) Navigate(_ context.Context, u string) error { return f.note("navigate " + u) }
func (f *fakeDriver) Back(context.Context) error                 { return f.note("back") }
func (f *fakeDriver) Scroll(_ context.Context, id, dir string, times int) error {
	return f.note("scroll " + id + " " + dir + " " + strings.Repeat("x", times))
}
func (f *fakeDriver) ScrollToText(_ context.Context, text, dir string) error {
	return f.note("scroll to " + text + " " + dir)
}
func (f *fakeDriver) Upload(_ context.Context, id string, files []string) error {
	return f.note("upload " + id + " " + strings.Join(files, ","))
}
func (f *fakeDriver) FillSecret(_ context.Context, id, name string) error {
	return f.note("secret " + id + " " + name)
}
func (f *fakeDriver) Act(ctx context.Context, a *catalog.Action) (*catalog.Result, error) {
	if err := a.Do(ctx); err != nil {
		return nil, err
	}
	return catalog.TextResult(a.Lead + " | " + a.Attempt), nil
}
func (f *fakeDriver) Observe(context.Context) (*catalog.Result, error) {
	return catalog.TextResult("observed"), nil
}
func (f *fakeDriver) Screenshot(context.Context) (*catalog.Result, error) {
	return catalog.TextResult("shot"), nil
}
func (f *fakeDriver) Locate(_ context.Context, in catalog.LocateArgs) (*catalog.Result, error) {
	exact := in.Exact == nil || *in.Exact
	if exact {
		return catalog.TextResult("locate " + string(in.Role) + " " + string(in.Name) + " exact"), nil
	}
	return catalog.TextResult("locate " + string(in.Role) + " " + string(in.Name)), nil
}
func (f *fakeDriver) StartRecording(_ context.Context, name string) (*catalog.Result, error) {
	return catalog.TextResult("record " + name), nil
}
func (f *fakeDriver) StopRecording(context.Context) (*catalog.Result, error) {
	return catalog.TextResult("stop"), nil
}
func (f *fakeDriver) Point(_ context.Context, tool string, in catalog.PointArgs) (*catalog.Result, error) {
	return catalog.TextResult(tool + " " + in.Value + in.Key), nil
}

func (f *fakeDriver) ObserveWithin(_ context.Context, id string) (*catalog.Result, error) {
	return catalog.TextResult("within " + id), nil
}
func (f *fakeDriver) WaitFor(_ context.Context, in catalog.WaitForArgs) (*catalog.Result, error) {
	return catalog.TextResult(fmt.Sprintf("wait %s|%s|%s gone=%v %v", in.Text, in.Role, in.Name, in.Gone, float64(in.Timeout))), nil
}
func (f *fakeDriver) FillForm(_ context.Context, fields []catalog.FormField) (*catalog.Result, error) {
	var parts []string
	for _, x := range fields {
		parts = append(parts, string(x.Target)+"="+x.Value)
	}
	return catalog.TextResult("fill " + strings.Join(parts, ",")), nil
}
func (f *fakeDriver) Dialogs(_ context.Context, in catalog.DialogsArgs) (*catalog.Result, error) {
	return catalog.TextResult(fmt.Sprintf("dialogs %v %q", in.Accept, in.PromptText)), nil
}

// TestRun: each tool decodes its typed arguments and asks the driver for
// the engine calls of spec §3.2, with the leads of §3.5.
func TestRun(t *testing.T) {
	c, err := catalog.New(full(), catalog.Options{Target: "web", Secrets: []string{`"admin" (password)`}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args, text string
		calls            []string
	}{
		{"observe", ``, "observed", nil},
		{"tap", `{"target":"n1"}`, "Tapped #n1. | tap #n1", []string{"perform n1 tap "}},
		{"press", `{"key":"Enter","times":2}`, "Pressed Enter 2 times on the focused field. | press Enter on the focused field", []string{"press Enter", "press Enter"}},
		{"press", `{"target":"n3","key":"Tab"}`, "Pressed Tab on #n3. | press Tab on #n3", []string{"perform n3 press Tab"}},
		{"type", `{"value":"hi","replace":true}`, "Typed into the focused field. | type into the focused field", []string{"type replace hi"}},
		{"check", `{"target":"n2","checked":false}`, "Unchecked #n2. | check #n2", []string{"perform n2 uncheck "}},
		{"check", `{"target":"n2"}`, "Checked #n2. | check #n2", []string{"perform n2 check "}},
		{"select", `{"target":"n4","value":"Two"}`, `Selected "Two" in #n4. | select "Two" in #n4`, []string{"perform n4 selectOption Two"}},
		{"scroll", `{"direction":"down","times":3}`, "Scrolled down 3 screens. | scroll down", []string{"scroll  down xxx"}},
		{"scroll_to", `{"text":"Footer"}`, `Scrolled down until "Footer" was in view. | scroll_to "Footer"`, []string{"scroll to Footer down"}},
		{"upload", `{"target":"n5","files":["a.txt","b.txt"]}`, `Uploaded "a.txt", "b.txt" to #n5. | upload "a.txt" to #n5`, []string{"upload n5 a.txt,b.txt"}},
		{"navigate", `{"url":"/checkout"}`, "Navigated to /checkout. | navigate /checkout", []string{"navigate /checkout"}},
		{"type_secret", `{"target":"n6","name":"admin"}`, `Filled secret "admin" into #n6; its value is masked in every observation. | type_secret "admin" into #n6`, []string{"secret n6 admin"}},
		{"locate", `{"role":"button","name":"Go","exact":false}`, "locate button Go", nil},
		{"locate", `{"role":"button"}`, "locate button  exact", nil},
		{"type_at", `{"x":1,"y":2,"value":"v"}`, "type_at v", nil},
		{"start_recording", `{"name":"demo"}`, "record demo", nil},
		// Issue 29: a listing's "#n16" is read as n16.
		{"tap", `{"target":"#n16"}`, "Tapped #n16. | tap #n16", []string{"perform n16 tap "}},
		{"drag", `{"target":"#n1","to":"#n2"}`, "Dragged #n1 to #n2. | drag #n1 to #n2", []string{"perform n1 dragTo "}},
		{"observe", `{"within":"#n42"}`, "within n42", nil},
		{"wait_for", `{"text":"Saved"}`, "wait Saved|| gone=false 0", nil},
		{"wait_for", `{"role":"dialog","name":"Details","gone":true,"timeout":2.5}`, "wait |dialog|Details gone=true 2.5", nil},
		{"fill_form", `{"fields":[{"target":"#n1","value":"Ada"},{"target":"n2","value":"true"}]}`, "fill n1=Ada,n2=true", nil},
		{"dialogs", `{"accept":true,"promptText":"Bob"}`, `dialogs true "Bob"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			tool, err := c.Lookup(tt.tool)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tool.Validate(json.RawMessage(tt.args)); err != nil {
				t.Fatal(err)
			}
			d := &fakeDriver{m: full()}
			res, err := tool.Run(context.Background(), d, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tt.text {
				t.Errorf("text %q, want %q", res.Text, tt.text)
			}
			if strings.Join(d.got, "\n") != strings.Join(tt.calls, "\n") {
				t.Errorf("calls %q, want %q", d.got, tt.calls)
			}
		})
	}
	// Arguments the schema cannot say are wrong are INVALID_ARGUMENT before
	// anything runs.
	for _, bad := range []struct{ tool, args, want string }{
		{"wait_for", `{}`, "INVALID_ARGUMENT: call wait_for: give exactly one of text or role"},
		{"wait_for", `{"text":"a","role":"button"}`, "INVALID_ARGUMENT: call wait_for: give exactly one of text or role"},
		{"wait_for", `{"text":"a","name":"b"}`, "INVALID_ARGUMENT: call wait_for: name only narrows a role"},
		{"dialogs", `{"accept":false,"promptText":"x"}`, "INVALID_ARGUMENT: call dialogs: promptText goes with accept: true"},
	} {
		tool, _ := c.Lookup(bad.tool)
		d := &fakeDriver{m: full()}
		if _, err := tool.Run(context.Background(), d, json.RawMessage(bad.args)); err == nil || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("%s %s: %v, want %s", bad.tool, bad.args, err, bad.want)
		}
	}
	for _, bad := range []struct{ tool, args string }{
		{"wait_for", `{"text":"a","timeout":31}`},
		{"wait_for", `{"text":"a","timeout":0}`},
		{"fill_form", `{"fields":[]}`},
		{"fill_form", `{"fields":[{"target":"n1"}]}`},
		{"fill_form", `{"fields":[{"target":"n1","value":"x","extra":1}]}`},
		{"dialogs", `{}`},
		{"observe", `{"within":""}`},
	} {
		tool, _ := c.Lookup(bad.tool)
		if _, err := tool.Validate(json.RawMessage(bad.args)); err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: call "+bad.tool+": ") {
			t.Errorf("%s %s validated: %v", bad.tool, bad.args, err)
		}
	}
	// A key that does not parse is INVALID_ARGUMENT before anything runs.
	press, _ := c.Lookup("press")
	d := &fakeDriver{m: full()}
	if _, err := press.Run(context.Background(), d, json.RawMessage(`{"key":"NoSuchKey+"}`)); err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: call press: key: ") || len(d.got) != 0 {
		t.Errorf("bad key: %v %q", err, d.got)
	}
}
