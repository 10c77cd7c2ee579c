// Package server is the MCP face of the host (spec mcp.md §2), built on the
// official Go MCP SDK: the four fixed tools open_session, tools, call and
// close_session with closed input schemas, the server instructions, and
// the guide resources. Every text it returns is redacted.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/e2e-conform/toolkit/mcp/catalog"
	"github.com/e2e-conform/toolkit/mcp/guide"
	"github.com/e2e-conform/toolkit/mcp/mcperr"
	"github.com/e2e-conform/toolkit/mcp/session"
)

// Instructions are the server instructions (spec §2.6).
const Instructions = `e2e is a local-first end-to-end test runner; this server drives an e2e project's app (its e2e.config.json) live.
Call open_session (optionally target, config path, headed: true when the user wants to watch) to get a session, its catalog and the first observation; without a config file pass engine: "web" and app: {url}. Then call {tool, args} runs any catalog tool: observe, the actions its engine honors, type_secret, locate, screenshot, start_recording/stop_recording when the engine records video. tools lists them, tools {tool} shows one tool's arguments. close_session when done.
Several sessions can be open at once, each with its own browser or device; parallel agents (subagents) each open their own and pass the session id to every tools, call, close_session.
Write deterministic tests from what you saw. Resources e2e://guide and e2e://guide/{topic} hold the writing guide.`

// The inputs of the four fixed tools (spec §2.1–§2.4); their closed
// schemas are inferred from these structs (inputSchema).
type (
	openIn struct {
		Target catalog.Text `json:"target,omitempty" jsonschema:"Target name from the config; required when the config declares several"`
		Config catalog.Text `json:"config,omitempty" jsonschema:"Path to an e2e config file, relative to the server's directory; default: the nearest e2e.config.json"`
		Headed *bool        `json:"headed,omitempty" jsonschema:"Show the browser or simulator, when the engine supports it; pass true when the user wants to watch. Default: headless, unless the server was started with --headed"`
		Engine *engineArg   `json:"engine,omitempty" jsonschema:"Zero config: \"web\" for the built-in web engine, or {command, args} of an engine to spawn"`
		App    *appArg      `json:"app,omitempty" jsonschema:"Zero config: the app to open"`
	}
	appArg struct {
		URL catalog.Text `json:"url" jsonschema:"The app URL to open"`
	}
	toolsIn struct {
		Tool    catalog.Text `json:"tool,omitempty" jsonschema:"A catalog tool name; omit to list the catalog"`
		Session catalog.Text `json:"session,omitempty" jsonschema:"Session id from open_session; may be omitted only while one session is open"`
	}
	callIn struct {
		Tool    catalog.Text    `json:"tool" jsonschema:"A catalog tool name, e.g. \"observe\", \"tap\", \"locate\", \"screenshot\""`
		Args    json.RawMessage `json:"args,omitempty" jsonschema:"The tool's arguments; omit for a tool without any"`
		Session catalog.Text    `json:"session,omitempty" jsonschema:"Session id from open_session; may be omitted only while one session is open"`
	}
	closeIn struct {
		Session catalog.Text `json:"session,omitempty" jsonschema:"Session id from open_session; may be omitted only while one session is open"`
	}
)

// engineArg is open_session's engine: "web" or {command, args}.
type engineArg struct {
	Builtin string
	Command string
	Args    []string
}

// UnmarshalJSON reads "web" or {command, args}.
func (e *engineArg) UnmarshalJSON(b []byte) error {
	if json.Unmarshal(b, &e.Builtin) == nil {
		return nil
	}
	var cmd struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal(b, &cmd); err != nil {
		return err
	}
	e.Command, e.Args = cmd.Command, cmd.Args
	return nil
}

func ptr[T any](v T) *T { return &v }

// inputTypes are the schemas of the fixed tools' argument types beyond
// the catalog's.
var inputTypes = func() map[reflect.Type]*jsonschema.Schema {
	m := map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[engineArg](): {OneOf: []*jsonschema.Schema{{Const: ptr[any]("web")}, {
			Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, Required: []string{"command"},
			Properties: map[string]*jsonschema.Schema{
				"command": {Type: "string", MinLength: ptr(1)},
				"args":    {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			}}}},
		reflect.TypeFor[json.RawMessage](): {Type: "object", AdditionalProperties: &jsonschema.Schema{}},
		reflect.TypeFor[catalog.Text]():    {Type: "string", MinLength: ptr(1)},
	}
	return m
}()

// inputSchema is the closed input schema inferred from In.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := catalog.SchemaFor[In](inputTypes)
	if err != nil {
		panic(err) // the structs above are fixed: a test builds every one
	}
	return s
}

// Options configure New.
type Options struct {
	Host    *session.Host
	Version string
	// Logger receives the SDK's own diagnostics (stderr, never stdout).
	Logger *slog.Logger
}

func falsePtr() *bool { f := false; return &f }

// New builds the MCP server.
func New(o Options) *mcp.Server {
	h := o.Host
	red := h.Redactor()
	s := mcp.NewServer(&mcp.Implementation{Name: "e2e", Title: "e2e", Version: o.Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       o.Logger,
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	text := func(t string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: red.String(t)}}}
	}
	fail := func(err error) *mcp.CallToolResult {
		r := text(mcperr.Text(err))
		r.IsError = true
		return r
	}
	ann := func(ro bool) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{ReadOnlyHint: ro, OpenWorldHint: falsePtr()}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "open_session", InputSchema: inputSchema[openIn](), Annotations: ann(false),
		Description: "Open a live session on one target of the project: loads the config (or, without one, engine \"web\" and app {url}), starts the target's app command if any, boots the engine, opens the app URL, and returns the session id, the catalog of tools and the first observation. Several sessions may be open, one per agent: pass the id to every later call. Then act with call and look with call {tool: \"observe\"}."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in openIn) (*mcp.CallToolResult, any, error) {
			req := session.OpenRequest{Target: string(in.Target), Config: string(in.Config), Headed: in.Headed}
			if e := in.Engine; e != nil {
				req.Engine = &session.EngineArg{Builtin: e.Builtin, Command: e.Command, Args: e.Args}
			}
			if in.App != nil {
				if req.Engine == nil {
					return fail(mcperr.New(mcperr.InvalidArgument, "app is the zero-config form: pass engine too (\"web\" or {command, args})")), nil, nil
				}
				req.AppURL = string(in.App.URL)
			}
			t, err := h.Open(ctx, req)
			if err != nil {
				return fail(err), nil, nil
			}
			return text(t), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "tools", InputSchema: inputSchema[toolsIn](), Annotations: ann(true),
		Description: "List the catalog of a session (what call can run), or with tool show one tool's full description and JSON Schema of its arguments."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in toolsIn) (*mcp.CallToolResult, any, error) {
			t, err := h.Tools(ctx, string(in.Session), string(in.Tool))
			if err != nil {
				return fail(err), nil, nil
			}
			return text(t), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "call", InputSchema: inputSchema[callIn](), Annotations: ann(false),
		Description: "Run one catalog tool of a session, e.g. call {tool: \"tap\", args: {target: \"n42\"}, session: \"<id>\"}. Arguments are checked against the tool's schema before anything runs; tools {tool} shows them. Actions answer with what changed on screen."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in callIn) (*mcp.CallToolResult, any, error) {
			res, err := h.Call(ctx, string(in.Session), string(in.Tool), in.Args)
			if err != nil {
				return fail(err), nil, nil
			}
			r := text(res.Text)
			r.IsError = res.IsError
			for _, img := range res.Images {
				r.Content = append(r.Content, &mcp.ImageContent{Data: img.Data, MIMEType: img.MIMEType})
			}
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "close_session", InputSchema: inputSchema[closeIn](), Annotations: ann(false),
		Description: "Close a live session: save a running recording, end the attempt, dispose the engine, and stop the app processes the session started (once no other session uses them)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in closeIn) (*mcp.CallToolResult, any, error) {
			t, err := h.Close(ctx, string(in.Session))
			if err != nil {
				return fail(err), nil, nil
			}
			return text(t), nil, nil
		})

	// call's args must be an object; the SDK would refuse another JSON type
	// with its own text and no code, before the handler: answer it as
	// every other argument error is, INVALID_ARGUMENT (issue 29).
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ct, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && ct.Params != nil && ct.Params.Name == "call" {
				if kind := argsKind(ct.Params.Arguments); kind != "" {
					return fail(mcperr.New(mcperr.InvalidArgument, "call: args must be an object of the tool's arguments, e.g. {\"target\": \"n42\"}, not %s; tools {tool} shows them", kind)), nil
				}
			}
			return next(ctx, method, req)
		}
	})
	// The SDK lists tools by name; the spec's order is fixed (§2).
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lt, ok := res.(*mcp.ListToolsResult); ok && err == nil && method == "tools/list" {
				rank := map[string]int{"open_session": 0, "tools": 1, "call": 2, "close_session": 3}
				sort.SliceStable(lt.Tools, func(i, j int) bool { return rank[lt.Tools[i].Name] < rank[lt.Tools[j].Name] })
			}
			return res, err
		}
	})
	s.AddResource(&mcp.Resource{URI: "e2e://guide", Name: "guide", Title: "e2e guide", MIMEType: "text/markdown",
		Description: "How to set up e2e, write tests, drive the app over MCP, run and debug"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: guide.Guide()}}}, nil
		})
	topic := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		name := strings.TrimPrefix(req.Params.URI, "e2e://guide/")
		t, err := guide.Topic(name)
		if err != nil {
			var te *guide.TopicError
			if errors.As(err, &te) {
				return nil, fmt.Errorf("%w", err)
			}
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: t}}}, nil
	}
	for _, t := range guide.Topics() {
		s.AddResource(&mcp.Resource{URI: "e2e://guide/" + t, Name: t, MIMEType: "text/markdown"}, topic)
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "e2e://guide/{topic}", Name: "guide-topic", Title: "e2e guide topic",
		MIMEType: "text/markdown", Description: "One topic of the guide: " + strings.Join(guide.Topics(), ", ")}, topic)
	return s
}

// argsKind names the JSON type of call's args member when it is present
// and neither an object nor null ("a string"), else "".
func argsKind(raw json.RawMessage) string {
	var in struct {
		Args json.RawMessage `json:"args"`
	}
	if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	a := bytes.TrimSpace(in.Args)
	if len(a) == 0 {
		return ""
	}
	switch a[0] {
	case '{', 'n':
		return ""
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// Serve runs the server on t until the client disconnects or ctx ends,
// then closes every session (reason "client disconnected" or "server
// shutdown"). It returns the close texts and the SDK's run error.
func Serve(ctx context.Context, s *mcp.Server, h *session.Host, t mcp.Transport, log *slog.Logger) error {
	err := s.Run(ctx, t)
	reason := session.ReasonDisconnect
	if ctx.Err() != nil {
		reason = session.ReasonShutdown
	} else {
		log.Info("client disconnected; closing every session")
	}
	for _, txt := range h.CloseAll(reason) {
		log.Info(txt)
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}
