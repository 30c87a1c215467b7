package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"

	"github.com/fworker/fworker/drain"
)

// verdict is what one drain status means for a waiter.
type verdict int

const (
	keepWaiting verdict = iota
	succeeded
	failed
)

// notFoundText is the end of Pulsar's ERROR for a worker without a drain
// record: "Worker <id> not found in drain records".
const notFoundText = "not found in drain records"

// drainJudge turns the statuses a waiter sees, in order, into verdicts.
// SUCCESS ends the wait well and ERROR badly, except that the ERROR "not
// found in drain records" after a SUCCESS means the drained worker left
// and the leader purged its record: still a success. NOT_RUN and RUNNING
// mean wait on.
type drainJudge struct{ seenSuccess bool }

func (j *drainJudge) judge(rec drain.Record) verdict {
	switch rec.Status {
	case drain.Success:
		j.seenSuccess = true
		return succeeded
	case drain.Error:
		if j.seenSuccess && strings.Contains(rec.LastError, notFoundText) {
			return succeeded
		}
		return failed
	default:
		return keepWaiting
	}
}

// transient reports whether a failed status poll is worth repeating: the
// network, a leader change (5xx), rate limiting (429). Other 4xx answers
// will not change.
func transient(err error) bool {
	var re rest.Error
	if errors.As(err, &re) {
		return re.Code >= 500 || re.Code == http.StatusTooManyRequests
	}
	return true
}

// pollTimeout bounds one status request.
const pollTimeout = 15 * time.Second

// waitDrain polls the drain status until the drain ends, --timeout passes
// (exit 2) or the user interrupts (exit 1). The drain itself goes on in
// both of the latter cases.
func (a *app) waitDrain(parent context.Context, c *apiClient, f drainFlags) error {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if f.timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, f.timeout)
	}
	defer cancel()
	path, q := drainPath(f.workerID)
	name := f.workerID
	var p progress
	var j drainJudge
	var last drain.Record
	lastPollErr := ""
	tick := time.NewTicker(f.interval)
	defer tick.Stop()
	for {
		var rec drain.Record
		pctx, pcancel := context.WithTimeout(ctx, pollTimeout)
		_, err := c.get(pctx, path, q, &rec)
		pcancel()
		switch {
		case err == nil:
			if name == "" {
				name = rec.Worker
			}
			if p == nil {
				p = a.newProgress(name, rec)
			}
			last, lastPollErr = rec, ""
			p.update(rec)
			switch j.judge(rec) {
			case succeeded:
				p.finish(rec, true)
				return nil
			case failed:
				p.finish(rec, false)
				return fmt.Errorf("drain of %s ended in ERROR: %s", name, rec.LastError)
			}
		case ctx.Err() != nil:
		case !transient(err):
			if p != nil {
				p.stop()
			}
			return err
		case err.Error() != lastPollErr:
			lastPollErr = err.Error()
			if p != nil {
				p.note("status poll failed, retrying")
			}
			fmt.Fprintf(a.stderr, "drain %s: status poll failed, retrying: %v\n", orWorker(name), err)
		}
		select {
		case <-ctx.Done():
			if p != nil {
				p.stop()
			}
			state := "no status seen yet"
			if last.Status != "" {
				state = fmt.Sprintf("still %s, moved %d/%d", last.Status, last.Moved, last.Total)
			}
			if parent.Err() != nil {
				return fmt.Errorf("interrupted while waiting for the drain of %s (%s); the drain goes on (see get-drain-status)", orWorker(name), state)
			}
			return &exitCodeError{code: exitTimeout, err: fmt.Errorf(
				"timed out after %s waiting for the drain of %s (%s); the drain goes on (see get-drain-status)", f.timeout, orWorker(name), state)}
		case <-tick.C:
		}
	}
}

func orWorker(name string) string {
	if name == "" {
		return "the worker"
	}
	return name
}
