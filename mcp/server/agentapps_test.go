package server_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The pages of the small apps of issue 29, served by the test.
const (
	todoPage = `<!doctype html><title>Todo</title><main>
<h1>Todo</h1>
<ul id="list"><li><label><input type="checkbox" class="done"> Buy milk</label></li><li><label><input type="checkbox" class="done"> Walk dog</label></li></ul>
<p role="status" id="count">2 items</p>
<button id="clear">Clear completed</button>
<button id="rename">Rename first</button>
<script>
function count(){document.getElementById('count').textContent=document.querySelectorAll('#list li').length+' items'}
document.getElementById('clear').onclick=function(){
  var done=[...document.querySelectorAll('#list li')].filter(li=>li.querySelector('input').checked);
  if(!done.length)return;
  if(confirm('Delete '+done.length+' completed item?')){done.forEach(li=>li.remove());count()}
};
document.getElementById('rename').onclick=function(){
  var v=prompt('New name?','Default name');
  if(v!==null){document.querySelector('#list li label').lastChild.textContent=' '+v}
};
</script></main>`

	slowPage = `<!doctype html><title>Slow</title><main>
<button id="load">Load</button>
<button id="later">Load with spinner</button>
<p role="status" id="out">Nothing yet</p>
<label>Password <input type="password" id="pw"></label>
<script>
document.getElementById('load').onclick=async function(){
  var r=await fetch('/api/slow');document.getElementById('out').textContent=await r.text()};
document.getElementById('later').onclick=async function(){
  document.getElementById('out').textContent='Loading…';
  var r=await fetch('/api/slow?again');document.getElementById('out').textContent='Done: '+await r.text()};
</script></main>`

	// echoPage logs and alerts what is typed into its field: a secret
	// filled there reaches the app log and a dialog message.
	echoPage = `<!doctype html><title>Echo</title><main><label>Token <input id="tok"></label>
<button id="go">Check token</button><p role="status" id="st">idle</p>
<script>document.getElementById('go').onclick=function(){var v=document.getElementById('tok').value;
console.error('token check failed for '+v);alert('Bad token '+v);document.getElementById('st').textContent='checked'}</script></main>`

	formPage = `<!doctype html><title>Sign up</title><main><form>
<label>Name <input id="name"></label>
<label>Email <input id="email" type="email"></label>
<label>Country <select id="country"><option>France</option><option>Japan</option></select></label>
<label><input type="checkbox" id="terms"> I accept the terms</label>
</form></main>`
)

// tablePage is a 300-row table, a button that changes row 290 (past a
// listing's cut), and an open <dialog> after the table.
func tablePage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Table</title><main><button id="mark">Mark row 290</button><table><thead><tr><th>Item</th><th>Price</th><th>Note</th><th>Stock</th></tr></thead><tbody>`)
	for i := range 300 {
		fmt.Fprintf(&b, `<tr><td>Item number %d of the big table</td><td id="p%d">%d EUR</td><td>note %d about this item</td><td><button>Details</button></td></tr>`, i, i, i, i)
	}
	b.WriteString(`</tbody></table>
<dialog open aria-labelledby="dh"><h2 id="dh">Row 17 details</h2><p>Price: 17 EUR</p><button id="close" onclick="this.closest('dialog').close()">Close</button></dialog>
<script>document.getElementById('mark').onclick=function(){document.getElementById('p290').textContent='SOLD'}</script></main>`)
	return b.String()
}

// agentApps serves the small apps.
func agentApps() http.Handler {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/todo", page(todoPage))
	mux.HandleFunc("/slow", page(slowPage))
	mux.HandleFunc("/form", page(formPage))
	mux.HandleFunc("/echo", page(echoPage))
	mux.HandleFunc("/table", page(tablePage()))
	mux.HandleFunc("/api/slow", func(w http.ResponseWriter, r *http.Request) {
		// The app's own latency: a request that answers after 300 ms.
		select {
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "Loaded 3 items")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<!doctype html><title>Not found</title><h1>Nothing here</h1>")
	})
	return mux
}

const appsTarget = `{"trace":"on","targets":[{"name":"web","platform":"web","engine":{"builtin":"web"},"app":{"url":"$APP/todo"}}],
 "secrets":{"apiKey":{"env":"API_KEY"}}}`

// appsCanary is the value of the apps' secret apiKey.
const appsCanary = "CANARY-apps-9f3e-s3cr3t"

// TestAgentApps drives the small apps of issue 29 through the Go SDK
// client in one session (one Chromium): native dialogs, settling, big
// pages, and the small things.
func TestAgentApps(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"API_KEY": appsCanary}[k] }
	e := newEnv(t, envOpts{config: appsTarget, builtin: webTransport, handler: agentApps(), getenv: getenv})
	id, text := e.open(nil)
	var all []string // every text returned, searched for the secret at the end
	call := func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		a := map[string]any{"tool": tool, "session": id}
		if args != nil {
			a["args"] = args
		}
		res, isErr, _ := e.call("call", a)
		all = append(all, res)
		return res, isErr
	}
	mustOK := func(tool string, args map[string]any) string {
		t.Helper()
		res, isErr := call(tool, args)
		if isErr {
			t.Fatalf("%s %v: %s", tool, args, res)
		}
		return res
	}
	navigate := func(path string) string {
		t.Helper()
		return mustOK("navigate", map[string]any{"url": path})
	}

	t.Run("dialog dismissed, then accepted by the policy", func(t *testing.T) {
		milk := nodeID(t, text, `checkbox "Buy milk"`)
		mustOK("check", map[string]any{"target": milk})
		clear := nodeID(t, text, `button "Clear completed"`)
		res := mustOK("tap", map[string]any{"target": clear})
		mustContain(t, res, `A native confirm dialog opened: "Delete 1 completed item?". It was dismissed: Cancel (the app got false). To accept dialogs instead, call {tool: "dialogs", args: {accept: true}}, then repeat the action.`)
		if strings.Contains(res, "no visible effect") || strings.Contains(res, "APP_NOT_OPEN") {
			t.Errorf("the dismissed dialog reads as no effect or a failure:\n%s", res)
		}
		res = mustOK("dialogs", map[string]any{"accept": true})
		mustContain(t, res, "Dialog policy: accept")
		res = mustOK("tap", map[string]any{"target": clear})
		mustContain(t, res, `A native confirm dialog opened: "Delete 1 completed item?". It was accepted: OK (the app got true), by this session's dialog policy`,
			`removed #`+milk, `status "1 items"`)
		obs := mustOK("observe", nil)
		rename := nodeID(t, obs, `button "Rename first"`)
		mustOK("dialogs", map[string]any{"accept": true, "promptText": "Feed cat"})
		res = mustOK("tap", map[string]any{"target": rename})
		mustContain(t, res, `A native prompt dialog opened: "New name?". It was accepted: OK with "Feed cat"`, `Feed cat`)
		mustOK("dialogs", map[string]any{"accept": false})
		res = mustOK("tap", map[string]any{"target": rename})
		mustContain(t, res, `It was dismissed: Cancel (the app got null). To accept dialogs instead, call {tool: "dialogs", args: {accept: true, promptText: "…"}}`)
	})

	t.Run("settle: a 300 ms fetch, a spinner and wait_for, a password field", func(t *testing.T) {
		obs := navigate("/slow")
		load := nodeID(t, obs, `button "Load"`)
		res := mustOK("tap", map[string]any{"target": load})
		mustContain(t, res, `status "Loaded 3 items" (was: `)
		later := nodeID(t, obs, `button "Load with spinner"`)
		mustOK("tap", map[string]any{"target": later})
		res = mustOK("wait_for", map[string]any{"text": "Done: Loaded"})
		mustMatch(t, res, `^Waited \d+\.\d s: text "Done: Loaded" appeared\.`)
		mustContain(t, res, `status "Done: Loaded 3 items" (was: `)
		res = mustOK("wait_for", map[string]any{"text": "Loading", "gone": true, "timeout": 1})
		mustMatch(t, res, `^Waited \d+\.\d s: text "Loading" was gone\.`)
		res, isErr := call("wait_for", map[string]any{"role": "dialog", "timeout": 0.3})
		if !isErr {
			t.Errorf("wait_for of a dialog that never comes is not an error:\n%s", res)
		}
		mustMatch(t, res, `^wait_for timed out after \d+\.\d s: a dialog never appeared\.`)
		pw := nodeID(t, obs, `textbox "Password"`)
		res = mustOK("type", map[string]any{"target": pw, "value": "hunter2-not-a-secret"})
		mustContain(t, res, "The field is secure: its value is never shown")
		if strings.Contains(res, "no visible effect") {
			t.Errorf("a secure field reads as no effect:\n%s", res)
		}
	})

	t.Run("big page: the open dialog listed, within, locate ids, changes past the cut", func(t *testing.T) {
		obs := navigate("/table")
		mustContain(t, obs, "[observation truncated at the resolved observation byte limit]", "nodes not listed here …]")
		closeID := nodeID(t, obs, `button "Close"`)
		mustContain(t, obs, `dialog "Row 17 details"`, `text="Price: 17 EUR"`)
		if len(obs) > 80<<10 {
			t.Errorf("the navigate result is %d bytes", len(obs))
		}
		mark := nodeID(t, obs, `button "Mark row 290"`)
		res := mustOK("tap", map[string]any{"target": mark})
		mustMatch(t, res, `changed #n\d+ cell "SOLD" \(was: #n\d+ cell "290 EUR"\)`)
		sold := regexp.MustCompile(`changed #(n\d+) cell "SOLD"`).FindStringSubmatch(res)
		if len(sold) == 2 {
			row := mustOK("observe", map[string]any{"within": sold[1]})
			mustMatch(t, row, `^Subtree of #`+sold[1]+` \(revision b\d+, path /table, 1 nodes\):\n#`+sold[1]+` cell "SOLD"$`)
		}
		loc := mustOK("locate", map[string]any{"role": "cell", "name": "299 EUR"})
		cell := regexp.MustCompile(`\n- #(n\d+) cell "299 EUR"`).FindStringSubmatch(loc)
		if cell == nil {
			t.Fatalf("locate gives no id:\n%s", loc)
		}
		if res, isErr := call("hover", map[string]any{"target": cell[1]}); isErr {
			t.Errorf("a located id is refused:\n%.300s", res)
		}
		res = mustOK("tap", map[string]any{"target": "#" + closeID})
		mustMatch(t, res, `^Tapped #`+closeID+`\.`)
		mustContain(t, res, "removed #"+closeID)
	})

	t.Run("small things: #id, navigate, status, args as text, fill_form", func(t *testing.T) {
		res, isErr := call("navigate", map[string]any{"url": "not a url"})
		if !isErr || !strings.HasPrefix(res, "INVALID_ARGUMENT: navigate: \"not a url\"") {
			t.Errorf("navigate not a url: isError=%v\n%s", isErr, res)
		}
		res = navigate("/missing")
		mustMatch(t, res, `^Navigated to /missing: the server answered HTTP 404 Not Found\.`)
		res, isErr, _ = e.call("call", map[string]any{"tool": "tap", "args": `{"target":"n1"}`, "session": id})
		if !isErr || !strings.HasPrefix(res, "INVALID_ARGUMENT: call: args must be an object") {
			t.Errorf("args as a string: isError=%v\n%s", isErr, res)
		}
		obs := navigate("/form")
		name, email := nodeID(t, obs, `textbox "Name"`), nodeID(t, obs, `textbox "Email"`)
		country, terms := nodeID(t, obs, `combobox "Country"`), nodeID(t, obs, `checkbox "I accept the terms"`)
		res = mustOK("fill_form", map[string]any{"fields": []map[string]any{
			{"target": "#" + name, "value": "Ada"}, {"target": email, "value": "ada@example.test"},
			{"target": country, "value": "Japan"}, {"target": terms, "value": "true"}}})
		mustContain(t, res, "Filled 4 fields:\n- #"+name+`: typed "Ada"`+"\n- #"+email+`: typed "ada@example.test"`+"\n- #"+country+`: selected "Japan"`+"\n- #"+terms+": checked",
			`value="Ada"`, `checkbox "I accept the terms" [checked`)
		res, isErr = call("fill_form", map[string]any{"fields": []map[string]any{{"target": name, "value": "Bob"}, {"target": "n99999", "value": "x"}, {"target": email, "value": "y"}}})
		if !isErr {
			t.Errorf("fill_form with a stale id is not an error:\n%s", res)
		}
		mustContain(t, res, "- #"+name+`: typed "Bob"`+"\n- #n99999: failed\n- #"+email+": not filled\nfill_form field 2 of 3 (#n99999) failed: LOCATOR_NOT_FOUND")
	})

	t.Run("no secret in the new outputs: app log, dialog, within, wait_for, fill_form", func(t *testing.T) {
		mustOK("dialogs", map[string]any{"accept": false})
		obs := navigate("/echo")
		tok := nodeID(t, obs, `textbox "Token"`)
		mustOK("type_secret", map[string]any{"target": tok, "name": "apiKey"})
		res := mustOK("tap", map[string]any{"target": nodeID(t, obs, `button "Check token"`)})
		mustContain(t, res, `A native alert dialog opened: "Bad token <secret:apiKey>".`, "error console: token check failed for <secret:apiKey>")
		mustContain(t, mustOK("observe", map[string]any{"within": tok}), `value="<secret:apiKey>"`)
		mustContain(t, mustOK("wait_for", map[string]any{"text": "<secret:apiKey>", "gone": true, "timeout": 0.2}), "<secret:apiKey>")
		mustOK("wait_for", map[string]any{"role": "textbox", "name": "Token"})
		mustOK("fill_form", map[string]any{"fields": []map[string]any{{"target": tok, "value": "plain"}}})
		mustOK("locate", map[string]any{"role": "textbox"})
	})

	closed, isErr, _ := e.call("close_session", nil)
	if isErr {
		t.Fatal(closed)
	}
	<-e.ended
	all = append(all, closed, e.logs.String())
	for _, s := range all {
		if strings.Contains(s, appsCanary) {
			t.Errorf("the secret leaked into:\n%.2000s", s)
		}
	}
	// The dialog lines reached the trace too.
	tr, err := os.ReadFile(filepath.Join(e.dir, ".e2e", "artifacts", "web", "sessions", id, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(tr), appsCanary) {
		t.Error("the secret leaked into the trace")
	}
	mustContain(t, string(tr), `"kind":"appLog","text":"warning system: unhandled confirm dialog: Delete 1 completed item?`,
		`"kind":"appLog","text":"info system: accepted confirm dialog: Delete 1 completed item?"`)
}
