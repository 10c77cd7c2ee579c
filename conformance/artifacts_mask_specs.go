package conformance

import (
	"context"
	"fmt"
	"image"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// artifactMaskSpecs registers ART-006: secure fields are masked at the
// source (§4.16), judged in screenshots by D75.
//
// Two screenshots are judged, each in an attempt of its own on the same
// connection: one whose artifactsDir the server can write (a path, read
// from the file when the suite shares the server's file system, or data),
// and one whose artifactsDir it cannot write (unwritableDir), where
// §4.16's {data} form is "for a server that cannot write the artifact
// directory". Each stages the form fixture, puts a typed value into the
// password field, and reads the field's rect from the observations right
// before and after the screenshot. A branch that cannot be judged (no typed
// value, an error answer, a path where the directory cannot be written, an
// image the suite cannot read, a rect too small, the field moving) is
// noted; the spec is not verified when neither branch was judged.
func artifactMaskSpecs(s *suite) {
	s.spec("a screenshot taken while the form fixture's password field holds a typed value shows the field's rect masked (D75), as a path and as data where the server cannot write the artifact directory",
		[]string{"ART-006"}, func(ctx context.Context, e *runEnv) {
			e.fxNeed("to take the screenshots", wire.MethodScreenshot)
			c, op, _ := e.pooledAttempt(ctx)
			var notes []string
			judged := 0
			branch := func(name string, op client.Op, dir string) {
				form, why := e.passwordShotMasked(ctx, c, op, dir)
				if why != "" {
					notes = append(notes, name+": "+why)
					return
				}
				judged++
				e.observed("ART-006", "screenshot as "+form+" judged masked")
			}
			dir := ""
			if e.Manifest.Lists(wire.MethodStartAttempt) && e.Manifest.Lists(wire.MethodEndAttempt) {
				d, err := os.MkdirTemp(e.Artifacts, "attempt-masked-")
				Expect(err).NotTo(HaveOccurred(), "creating the attempt's artifacts directory")
				var why string
				if op, why = e.restartAttemptIn(ctx, c, op, d); why != "" {
					Skip(notVerified + why)
				}
				dir = d
			}
			branch("in an attempt whose artifactsDir the server can write", op, dir)
			if u, why := e.unwritableDir(); u == "" {
				notes = append(notes, "where the server cannot write the artifact directory: "+why)
			} else if op2, why := e.restartAttemptIn(ctx, c, op, u); why != "" {
				notes = append(notes, "where the server cannot write the artifact directory: "+why)
			} else {
				branch("in an attempt whose artifactsDir "+u+" the server cannot write", op2, u)
			}
			if judged == 0 {
				Skip(notVerified + "no screenshot's mask could be judged: " + strings.Join(notes, "; "))
			}
			if len(notes) > 0 {
				noteEntry("not judged: %s", strings.Join(notes, "; "))
			}
		})
}

// passwordShotMasked stages the form fixture in op's attempt (artifactsDir
// dir, "" when the engine learns none), types into its password field,
// takes a screenshot and judges the field's rect in it (D75), failing the
// spec when it is not masked. It returns the screenshot's form ("path" or
// "data") when the rect was judged masked, else why it could not be
// judged.
func (e *runEnv) passwordShotMasked(ctx context.Context, c *client.Conn, op client.Op, dir string) (form, why string) {
	sc := fixture.Form()
	snap := e.fxStage(ctx, c, op, sc, "")
	if _, why := e.fxTypePassword(ctx, c, op, snap); why != "" {
		return "", why
	}
	before := fxObserve(ctx, c, op, "of the form fixture before the screenshot")
	res, err := c.Screenshot(ctx, op, "password masked")
	if err != nil {
		return "", "artifacts/screenshot answered " + fxDescribeError(err)
	}
	after := fxObserve(ctx, c, op, "of the form fixture after the screenshot")
	r1, why := fxPasswordRect(before)
	if why != "" {
		return "", why
	}
	r2, why := fxPasswordRect(after)
	if why != "" {
		return "", why
	}
	if *r1 != *r2 || before.Viewport != after.Viewport {
		return "", fmt.Sprintf("the password field moved between the observations around the screenshot (%s, then %s)", rectString(*r1), rectString(*r2))
	}
	img, what, why := e.screenshotImage(res, dir)
	if why != "" {
		return "", why
	}
	j := judgeMask(img, before.Viewport, *r1)
	Expect(j.verdict).NotTo(Equal(maskUnmasked), "%s, taken while the form fixture's password field holds a typed value: want the field's rect masked (§4.16: \"Secure fields are masked at the source\"; D75: the inner part of the rect, scaled and inset by a quarter of its height, of one colour), got %s",
		what, j.detail)
	if j.verdict != maskMasked {
		return "", what + ": " + j.detail
	}
	if res.Path != "" {
		return "path", ""
	}
	return "data", ""
}

// screenshotImage reads the image of a screenshot result: data decoded, a
// path read from the file under dir. It returns the image and a
// description of the screenshot, or why the suite cannot read it (ART-002
// and ART-003 judge the forms).
func (e *runEnv) screenshotImage(res *wire.ScreenshotResult, dir string) (image.Image, string, string) {
	if res.Path == "" {
		what := "the screenshot returned as data"
		img, err := readPNGData(res.Data)
		if err != nil {
			return nil, what, what + " cannot be read (ART-003 judges it): " + err.Error()
		}
		return img, what, ""
	}
	what := fmt.Sprintf("the screenshot returned as the path %q", res.Path)
	if dir == "" {
		return nil, what, what + ": the engine learned no artifactsDir it is relative to"
	}
	if shared, why := e.sharesHost(); !shared {
		return nil, what, what + " cannot be read: " + why
	}
	if p := artifactPathProblem(res.Path); p != "" {
		return nil, what, what + " is not read (ART-002 judges it): " + p
	}
	b, err := os.ReadFile(underDir(dir, res.Path))
	if err != nil {
		return nil, what, fmt.Sprintf("%s cannot be read under %s (ART-002 judges it): %v", what, dir, err)
	}
	img, err := readPNG(b)
	if err != nil {
		return nil, what, what + " is no PNG (ART-002 judges it): " + err.Error()
	}
	return img, what, ""
}
