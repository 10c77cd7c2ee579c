package conformance

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// performInputSpecs registers ACT-010, ACT-011 and ACT-012: selectOption,
// setInputFiles and dragTo (spec §4.10, §5.8).
func performInputSpecs(s *suite) {
	// Labels and values differ (fixture decision for ACT-010); each form
	// picks an option other than the one selected before it. The fruit
	// status shows "<label> (<value>)".
	s.spec("selectOption with a label string, {label}, {value} and {index} each selects the intended option",
		[]string{"ACT-010"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Form())
			opts := fixture.FruitOptions()
			for _, c := range []struct {
				opt  wire.SelectOption
				want fixture.Option
				what string
			}{
				{wire.SelectOption{Text: opts[1].Label}, opts[1], fmt.Sprintf("the label string %q", opts[1].Label)},
				{wire.SelectOption{By: "label", Text: opts[2].Label}, opts[2], fmt.Sprintf("{label: %q}", opts[2].Label)},
				{wire.SelectOption{By: "value", Text: opts[0].Value}, opts[0], fmt.Sprintf("{value: %q}", opts[0].Value)},
				{wire.SelectOption{By: "index", Index: 1}, opts[1], "{index: 1}"},
			} {
				err := a.perform(ctx, fixture.FormFruit(), wire.LocatorAction{Kind: wire.ActionSelectOption, Option: c.opt})
				Expect(err).NotTo(HaveOccurred(), "selectOption with %s: want null, got an error", c.what)
				want := fmt.Sprintf("%s (%s)", c.want.Label, c.want.Value)
				a.await(ctx, func() bool { return a.status(fixture.FormFruitStatus()) == want })
				got := a.status(fixture.FormFruitStatus())
				Expect(got).To(Equal(want), "selectOption with %s: want the option %q selected (status %q), got the status %q", c.what, c.want.Label, want, got)
			}
		})

	// The files are created under the run's artifacts directory; the
	// files status lists their base names. No sentence fixes their order
	// (§5.8, ACT-011): the names are compared as a multiset, so a file
	// dropped, repeated or replaced still fails.
	s.spec("setInputFiles with two absolute paths of files the suite created sets the file input to those two files",
		[]string{"ACT-011"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Form())
			paths := e.actTempFiles()
			want := actBaseNames(paths)
			slices.Sort(want)
			shown := func() []string {
				got := fixture.ParseList(a.status(fixture.FormFilesStatus()))
				slices.Sort(got)
				return got
			}
			err := a.perform(ctx, fixture.FormFiles(), wire.LocatorAction{Kind: wire.ActionSetInputFiles, Paths: paths})
			Expect(err).NotTo(HaveOccurred(), "setInputFiles %q on the form's file input: want null, got an error", paths)
			a.await(ctx, func() bool { return slices.Equal(shown(), want) })
			got := shown()
			Expect(got).To(Equal(want), "setInputFiles with two files: want the file input to hold %q (in any order), the files status shows %q", want, got)
		})

	// Both refs come from the same observation, as one resolution.
	s.spec("dragTo from the drag source to the drop target's ref makes the fixture register the drop",
		[]string{"ACT-012"}, func(ctx context.Context, e *runEnv) {
			a := e.openScreenClient(ctx)
			a.stage(ctx, fixture.Form())
			a.observe(ctx)
			before := a.count(fixture.FormDrops())
			src, dst := a.refIn(fixture.FormDragSource()), a.refIn(fixture.FormDropTarget())
			err := a.c.Perform(ctx, a.op, src, wire.LocatorAction{Kind: wire.ActionDragTo, Target: &dst})
			Expect(err).NotTo(HaveOccurred(), "dragTo from the drag source to the drop target: want null, got an error")
			got := a.awaitCount(ctx, fixture.FormDrops(), before)
			Expect(got).To(Equal(before+1), "dragTo onto the drop target: want the %q counter raised from %d to %d, got %d", fixture.FormDrops().Label, before, before+1, got)
			last := a.status(fixture.FormLastDrop())
			Expect(last).To(Equal(fixture.FormDragSource().TestID), "dragTo onto the drop target: want the %q status to name %q, got %q", fixture.FormLastDrop().Label, fixture.FormDragSource().TestID, last)
		})
}
