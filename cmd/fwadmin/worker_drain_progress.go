package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/fworker/fworker/drain"
)

// progress shows a drain being waited for.
type progress interface {
	// update shows a status (called for every poll).
	update(rec drain.Record)
	// finish shows the last status; ok says whether the drain succeeded.
	finish(rec drain.Record, ok bool)
	// note shows a passing problem.
	note(msg string)
	// stop leaves the display as it is (timeout, interrupt, error).
	stop()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress picks a live bar for a terminal and plain lines otherwise;
// first is the first status seen.
func (a *app) newProgress(worker string, first drain.Record) progress {
	if isTerminal(a.stdout) {
		return newBarProgress(a.stdout, worker, first)
	}
	return &lineProgress{w: a.stdout, worker: worker}
}

// lineProgress prints one line per change, for logs and pipes:
//
//	drain standalone-1: RUNNING moved 1/2 remaining 1
type lineProgress struct {
	w      io.Writer
	worker string
	last   string
}

func (l *lineProgress) update(rec drain.Record) {
	line := fmt.Sprintf("drain %s: %s moved %d/%d remaining %d", l.worker, rec.Status, rec.Moved, rec.Total, rec.Remaining)
	if line != l.last {
		fmt.Fprintln(l.w, line)
		l.last = line
	}
}

func (l *lineProgress) finish(drain.Record, bool) {}

func (l *lineProgress) note(string) {}

func (l *lineProgress) stop() {}

// barProgress is a live progress bar: moved/total, elapsed time, status.
type barProgress struct {
	w      io.Writer
	worker string
	bar    *progressbar.ProgressBar
	max    int
	desc   string
}

func newBarProgress(w io.Writer, worker string, first drain.Record) *barProgress {
	b := &barProgress{w: w, worker: worker, max: max(first.Total, 1)}
	b.desc = b.describe(string(first.Status), first.InFlight)
	b.bar = progressbar.NewOptions(b.max,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(b.desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetWidth(30),
	)
	return b
}

func (b *barProgress) describe(status string, inFlight int) string {
	if inFlight > 0 {
		return fmt.Sprintf("drain %s: %s, %d in flight", b.worker, status, inFlight)
	}
	return fmt.Sprintf("drain %s: %s", b.worker, status)
}

// setDesc changes the description (which renders) only if it changed.
func (b *barProgress) setDesc(d string) {
	if d != b.desc {
		b.desc = d
		b.bar.Describe(d)
	}
}

func (b *barProgress) update(rec drain.Record) {
	if n := max(rec.Total, 1); n != b.max {
		b.max = n
		b.bar.ChangeMax(n)
	}
	moved := rec.Moved
	if rec.Status == drain.Running && moved >= b.max {
		moved = b.max - 1 // a full bar means done; wait for SUCCESS
	}
	if rec.Status == drain.Running {
		b.setDesc(b.describe(string(rec.Status), rec.InFlight))
	}
	_ = b.bar.Set(moved) // renders: the count and the elapsed time move on
}

func (b *barProgress) finish(rec drain.Record, ok bool) {
	if ok {
		_ = b.bar.Finish()
		b.setDesc(b.describe(string(drain.Success), 0))
	} else {
		b.setDesc(b.describe(string(rec.Status), 0))
		_ = b.bar.Exit()
	}
	fmt.Fprintln(b.w)
}

func (b *barProgress) note(msg string) { b.setDesc(b.describe(msg, 0)) }

func (b *barProgress) stop() {
	_ = b.bar.Exit()
	fmt.Fprintln(b.w)
}
