package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The server decodes the params of the hot methods with wire's strict
// decoders instead of a schema run; these tests hold the decoders to the
// schema's verdict, and their decoded value to wire.Unmarshal's.

// strictDecoders are the methods with a strict params decoder; decode
// returns the decoded value and the decoder's error.
var strictDecoders = []struct {
	method string
	decode func([]byte) (any, error)
	into   func() any // a fresh value for wire.Unmarshal
}{
	{wire.MethodObserve, func(b []byte) (any, error) { p, err := wire.DecodeObserveParams(b); return &p, err }, func() any { return new(wire.ObserveParams) }},
	{wire.MethodDismiss, decodeOpParams, newOpParams},
	{wire.MethodCapture, decodeOpParams, newOpParams},
	{wire.MethodStartVideo, decodeOpParams, newOpParams},
	{wire.MethodStopVideo, decodeOpParams, newOpParams},
	{wire.MethodBack, decodeOpParams, newOpParams},
	{wire.MethodRestart, decodeOpParams, newOpParams},
	{wire.MethodReset, decodeOpParams, newOpParams},
}

func decodeOpParams(b []byte) (any, error) { p, err := wire.DecodeOperationParams(b); return &p, err }
func newOpParams() any                     { return new(wire.OperationParams) }

// strictSeeds are params the decoders must decide as the schema does:
// valid ones, and every way the schema refuses an operation.
var strictSeeds = []string{
	withOp(""),
	withOp(`"options":{"pixels":true,"pixelFallback":false}`),
	withOp(`"options":{}`),
	withOp(`"options":{"pixels":1}`),
	withOp(`"options":null`),
	withOp(`"options":[]`),
	withOp(`"extra":null,"more":{"x":[1,2]}`),
	`{"operation":{"signal":{"id":"s-1","aborted":false},"timeoutMs":0,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":-4,"aborted":true},"timeoutMs":1.5e3,"runId":"\u0072","attemptId":"é","origin":"agent"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":-0,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":-0.0e7,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":-1e-400,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":-5,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":"1","runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1e400,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1.0},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1.5},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":null},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":true},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":9007199254740993},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1,"aborted":"yes"},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1,"aborted":true,"reason":{"code":-32000,"message":"x"}},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":1,"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"runId":"r","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"","attemptId":"a"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":7}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a","origin":"human"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a","origin":"\u0074est"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a","origin":null}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a","Origin":"x"}}`,
	`{"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a"},"operation":null}`,
	`{"operation":null,"operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"\u006fperation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"Operation":{"signal":{"id":1},"timeoutMs":1,"runId":"r","attemptId":"a"}}`,
	`{"operation":null}`,
	`{"operation":[]}`,
	`{}`,
	`[]`,
	`null`,
	`"x"`,
	`7`,
	` {"operation" : {"signal" : {"id" : 1} , "timeoutMs" : 1 , "runId" : "r" , "attemptId" : "a"} } `,
}

// TestStrictDecodersAgreeWithSchema checks every seed against every
// strict decoder.
func TestStrictDecodersAgreeWithSchema(t *testing.T) {
	s := MustLoad()
	decided := 0
	for _, d := range strictDecoders {
		for _, raw := range strictSeeds {
			if agree(t, s, d.method, d.decode, d.into, []byte(raw)) {
				decided++
			}
		}
	}
	// The seeds are chosen so that most are decided: a decoder that punts
	// on everything would agree trivially.
	if min := len(strictDecoders) * (len(strictSeeds) - 10); decided < min {
		t.Fatalf("only %d of %d seed verdicts were decided by the strict decoders, want at least %d", decided, len(strictDecoders)*len(strictSeeds), min)
	}
}

// FuzzParamsDecoders: on arbitrary valid JSON, a strict decoder's verdict,
// when it gives one, is the schema's, and what it accepts it decodes as
// wire.Unmarshal does.
func FuzzParamsDecoders(f *testing.F) {
	for i, raw := range strictSeeds {
		f.Add(uint8(i), []byte(raw))
	}
	for i, d := range strictDecoders {
		f.Add(uint8(i), []byte(validParams()[d.method]))
	}
	s := MustLoad()
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		if !json.Valid(raw) || !utf8.Valid(raw) {
			return // the decoders' precondition: the rpc layer checked the frame
		}
		d := strictDecoders[int(which)%len(strictDecoders)]
		agree(t, s, d.method, d.decode, d.into, raw)
	})
}

// agree checks one verdict and reports whether the decoder decided.
func agree(t *testing.T, s *Set, method string, decode func([]byte) (any, error), into func() any, raw []byte) bool {
	t.Helper()
	got, err := decode(raw)
	if errors.Is(err, wire.ErrUndecided) {
		return false
	}
	serr := s.ValidateParams(method, raw)
	if (err == nil) != (serr == nil) {
		t.Fatalf("%s %s: strict decoder says %v, the schema %v", method, raw, err, serr)
	}
	if err != nil {
		var de *wire.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("%s %s: rejection %T %v is not a *wire.DecodeError", method, raw, err, err)
		}
		return true
	}
	want := into()
	if uerr := wire.Unmarshal(raw, want); uerr != nil {
		t.Fatalf("%s %s: accepted by the strict decoder, refused by wire.Unmarshal: %v", method, raw, uerr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %s: strict decoder gives %+v, wire.Unmarshal %+v", method, raw, got, want)
	}
	return true
}
