package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Artifacts: spec §4.16, §4.17, §5.10; catalog ART.
//
// Files and times are checked when the suite shares the server's file
// system and clock: it spawned the server, or reaches it on a loopback
// address (runEnv.sharesHost). Over --connect to another address only the
// shapes are checked. A path result of an engine that does not list
// lifecycle/startAttempt (it never learned an artifactsDir) is likewise
// checked for its shape only.
//
// ART-002 and ART-003 bind one of the two result forms each; an engine that
// only ever returns the other form passes them with a note, since either
// form conforms (§4.16).
func artifactSpecs(s *suite) {
	s.spec("artifacts/screenshot, with and without label, returns exactly one of {path} and {data, mediaType: image/png}",
		[]string{"ART-001"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			for _, shot := range a.screenshots(ctx) {
				_, hasPath := shot.res["path"]
				_, hasData := shot.res["data"]
				mt := shot.res["mediaType"]
				Expect(hasPath != hasData).To(BeTrue(), "%s: want exactly one of path and data, got members %v", shot.what, memberNames(shot.raw))
				if hasPath {
					// mediaType beside path is allowed: the path branch's
					// schema forbids only data, and §1.6 ignores members a
					// receiver does not know.
					Expect(isJSONString(shot.res["path"])).To(BeTrue(), "%s: path: want a string, got %s", shot.what, shot.res["path"])
				} else {
					Expect(isJSONString(shot.res["data"])).To(BeTrue(), "%s: data: want a string, got %s", shot.what, clip(string(shot.res["data"])))
					var mediaType string
					_ = unmarshalIfPresent(mt, &mediaType)
					Expect(mediaType).To(Equal("image/png"), "%s: mediaType beside data: want \"image/png\", got %s", shot.what, orDefault(string(mt), "none"))
				}
			}
		})

	// Besides the two screenshots of ART-001, four carry hostile labels
	// (a traversal, a leading slash, a slash with non-ASCII text, 330
	// characters): a path built from a label must still be relative, with
	// no .. segment, and name a file that exists. An error answer to one of
	// those is not judged (no sentence obliges an engine to accept a label
	// it cannot name a file after).
	s.spec("a returned screenshot path is relative, uses /, has no .. segment, and names a PNG under artifactsDir when the response arrives",
		[]string{"ART-002"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			shared, why := e.sharesHost()
			paths := 0
			for _, shot := range append(a.screenshots(ctx), a.hostileScreenshots(ctx)...) {
				var p string
				if json.Unmarshal(shot.res["path"], &p) != nil {
					continue
				}
				paths++
				Expect(artifactPathProblem(p)).To(BeEmpty(), "%s: path: want relative to artifactsDir, with / and no .. segment", shot.what)
				if !shared || !e.Manifest.Lists(wire.MethodStartAttempt) {
					continue
				}
				file := underDir(a.Dir, p)
				b, err := os.ReadFile(file)
				Expect(err).NotTo(HaveOccurred(), "%s: path %q: want a file under the attempt's artifactsDir %s when the response arrived", shot.what, p, a.Dir)
				_, _, err = pngSize(b)
				Expect(err).NotTo(HaveOccurred(), "%s: the file %q: want a PNG", shot.what, p)
			}
			switch {
			case paths == 0:
				skipNothingToCheck("artifacts/screenshot returned data, never a path; there was no path to check")
			case !shared:
				noteEntry("the screenshot files were not checked: %s", why)
			}
		})

	// An engine that writes paths is asked once more in an attempt whose
	// artifactsDir it cannot write: {data} is the form "for a server that
	// cannot write the artifact directory" (§4.16). An error answer there,
	// or a path all the same, is noted and not judged here.
	s.spec("returned screenshot data decodes from padded standard base64 to a valid PNG, also where the server cannot write the artifact directory",
		[]string{"ART-003"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			datas := 0
			check := func(shots []screenshotResponse) {
				for _, shot := range shots {
					var d string
					if json.Unmarshal(shot.res["data"], &d) != nil {
						continue
					}
					datas++
					e.observed("ART-003", "screenshot data decoded")
					_, _, err := decodePNG(d)
					Expect(err).NotTo(HaveOccurred(), "%s: data: want padded standard base64 of a PNG (§1.6: \"Binary data is base64 in the standard alphabet of RFC 4648 §4, with = padding and no line breaks or other whitespace\")", shot.what)
				}
			}
			check(a.screenshots(ctx))
			unwritable := a.screenshotUnwritable(ctx, check)
			if datas == 0 {
				skipNothingToCheck("artifacts/screenshot returned a path, never data; there was no data to decode (" + unwritable + ")")
			}
		})

	// "A few actions" are observations and a screenshot: they need no
	// fixture and change nothing. [] is a valid answer (the attempt may
	// have shown nothing, §4.17); the segments' checks then have nothing to
	// read, and a note says so. Between the actions a session/restart (or
	// session/reset) opens a new page when listed: "One segment per page is
	// allowed when restart or reset opened a new one" (§4.17), so the
	// recording order of several segments can be checked. An error answer
	// to it is not judged here (SESS is).
	s.spec("after startVideo (null) and a few actions, stopVideo returns segments in recording order, files existing under artifactsDir, links http(s) with a mediaType, and startedAt within the attempt ± 2000 ms",
		[]string{"ART-004"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			expectNull(a.call(ctx, wire.MethodStartVideo, ""), "artifacts/startVideo")
			a.openFixtureRoot(ctx)
			if e.Manifest.Lists(wire.MethodObserve) {
				a.observe(ctx, "")
			}
			if e.Manifest.Lists(wire.MethodScreenshot) {
				expectResult(a.call(ctx, wire.MethodScreenshot, ""), "artifacts/screenshot while recording")
			}
			for _, m := range []string{wire.MethodRestart, wire.MethodReset} {
				if !e.Manifest.Lists(m) {
					continue
				}
				if eo := a.call(ctx, m, "").Error(); eo != nil {
					By(fmt.Sprintf("%s while recording answered error %d %q", m, eo.Code, eo.Message))
					break
				}
				a.openFixtureRoot(ctx)
				break
			}
			if e.Manifest.Lists(wire.MethodObserve) {
				a.observe(ctx, "")
			}
			raw := expectResult(a.call(ctx, wire.MethodStopVideo, ""), "artifacts/stopVideo")
			stopped := time.Now()
			var segs []map[string]json.RawMessage
			Expect(json.Unmarshal(raw, &segs)).To(Succeed(), "artifacts/stopVideo: want an array of VideoSegment, got %s", clip(string(raw)))
			Expect(segs).NotTo(BeNil(), "artifacts/stopVideo: want an array of VideoSegment, got %s", clip(string(raw)))
			shared, why := e.sharesHost()
			lo, hi := a.Started.Add(-2*time.Second), stopped.Add(2*time.Second)
			var prev time.Time
			for i, seg := range segs {
				what := "segment " + fmt.Sprint(i)
				var startedAt string
				Expect(json.Unmarshal(seg["startedAt"], &startedAt)).To(Succeed(), "%s: startedAt: want an RFC 3339 string, got %s", what, orDefault(string(seg["startedAt"]), "none"))
				t, err := parseRFC3339(startedAt)
				Expect(err).NotTo(HaveOccurred(), "%s: startedAt: want an RFC 3339 date-time, got %q", what, startedAt)
				_, hasPath := seg["path"]
				_, hasURL := seg["url"]
				Expect(hasPath != hasURL).To(BeTrue(), "%s: want exactly one of path (VideoFile) and url (VideoLink), got members %v", what, memberNames(encodeMembers(seg)))
				if hasPath {
					var p string
					Expect(json.Unmarshal(seg["path"], &p)).To(Succeed(), "%s: path: want a string, got %s", what, seg["path"])
					Expect(artifactPathProblem(p)).To(BeEmpty(), "%s: path: want relative to artifactsDir, with / and no .. segment", what)
					if shared && e.Manifest.Lists(wire.MethodStartAttempt) {
						st, err := os.Stat(underDir(a.Dir, p))
						Expect(err).NotTo(HaveOccurred(), "%s: path %q: want an existing file under the attempt's artifactsDir %s", what, p, a.Dir)
						Expect(st.Mode().IsRegular()).To(BeTrue(), "%s: path %q: want a file, got mode %v", what, p, st.Mode())
					}
				} else {
					var u, mt string
					Expect(json.Unmarshal(seg["url"], &u)).To(Succeed(), "%s: url: want a string, got %s", what, seg["url"])
					pu, err := url.Parse(u)
					Expect(err == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != "").To(BeTrue(), "%s: url: want an absolute http(s) URL, got %q", what, u)
					Expect(json.Unmarshal(seg["mediaType"], &mt)).To(Succeed(), "%s: mediaType: want a string beside url, got %s", what, orDefault(string(seg["mediaType"]), "none"))
					Expect(mt).NotTo(BeEmpty(), "%s: mediaType: want a media type beside url, got \"\"", what)
				}
				if shared {
					Expect(!t.Before(lo) && !t.After(hi)).To(BeTrue(), "%s: startedAt %s: want within the attempt, from the startAttempt request %s to the stopVideo response %s, ± 2000 ms",
						what, startedAt, a.Started.UTC().Format(time.RFC3339Nano), stopped.UTC().Format(time.RFC3339Nano))
				}
				Expect(t.Before(prev)).To(BeFalse(), "%s: startedAt %s is before the previous segment's %s: want segments in recording order", what, startedAt, prev.UTC().Format(time.RFC3339Nano))
				prev = t
			}
			switch {
			case len(segs) == 0:
				skipNothingToCheck("artifacts/stopVideo returned []: no segment to check")
			case !shared:
				noteEntry("video files and times were not checked: %s", why)
			}
		})

	s.spec("stopVideo without a startVideo in the attempt returns []",
		[]string{"ART-005"}, func(ctx context.Context, e *runEnv) {
			a := e.openRawAttempt(ctx)
			raw := expectResult(a.call(ctx, wire.MethodStopVideo, ""), "artifacts/stopVideo without startVideo")
			var segs []json.RawMessage
			err := json.Unmarshal(raw, &segs)
			Expect(err == nil && segs != nil && len(segs) == 0).To(BeTrue(), "artifacts/stopVideo without startVideo: want [], got %s", clip(string(raw)))
		})
	artifactMaskSpecs(s)
}

// screenshotUnwritable restarts a's attempt in a directory the server
// cannot write (unwritableDir) and passes check the two screenshots taken
// there that answered a result. It returns what happened, for a note.
func (a *rawAttemptConn) screenshotUnwritable(ctx context.Context, check func([]screenshotResponse)) string {
	dir, why := a.e.unwritableDir()
	if dir == "" {
		return why
	}
	if why := a.restartAttemptIn(ctx, dir); why != "" {
		return why
	}
	var shots []screenshotResponse
	for _, label := range []string{"", "unwritable directory"} {
		what, members := "artifacts/screenshot without label in an attempt whose artifactsDir "+dir+" the server cannot write", ""
		if label != "" {
			what, members = "artifacts/screenshot with label "+label+" in an attempt whose artifactsDir "+dir+" the server cannot write", fmt.Sprintf(`"label":%q`, label)
		}
		f := a.call(ctx, wire.MethodScreenshot, members)
		if eo := f.Error(); eo != nil {
			By(fmt.Sprintf("%s: answered error %d %q", what, eo.Code, eo.Message))
			continue
		}
		shots = append(shots, screenshotResponse{what: what, raw: f.Result(), res: resultObject(f, what)})
	}
	check(shots)
	return fmt.Sprintf("in an attempt whose artifactsDir %s the server cannot write, %d screenshot(s) answered a result and none carried data", dir, len(shots))
}
