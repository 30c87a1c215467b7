package rest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// TestStatusOf walks the error table; a wrapped error still answers with
// the Pulsar text of the error it wraps.
func TestStatusOf(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("actor: step: %w", err) }
	cases := []struct {
		err    error
		status int
		reason string
	}{
		{drain.ErrDrainInProgress, 409, "Another drain is in progress"},
		{wrap(drain.ErrDrainInProgress), 409, "Another drain is in progress"},
		{drain.ErrTooFewWorkers, 400, "Too few workers (need at least 2)"},
		{wrap(&drain.PriorDrainError{Worker: "w"}), 412, "Worker w was not yet removed after a prior drain op; try later"},
		{&drain.UnknownWorkerError{Worker: "w"}, 400, "Worker w is not among the current workers in the system"},
		{&drain.CapacityError{Worker: "w", Unplaced: 1, Total: 2, Detail: "ram"}, 409,
			"Cannot drain worker w: 1 of 2 instances do not fit on the other workers (ram); retry with force to drain anyway"},
		{wrap(&drain.NoRecordError{Worker: "w"}), 404, "Worker w not found in drain records"},
		{&drain.InvalidOptionError{Option: "deadline", Detail: "x"}, 400, "Invalid drain option deadline: x"},
		{scheduler.ErrRebalanceInProgress, 400, "Rebalance already in progress"},
		{wrap(scheduler.ErrNotReady), 503, notInit},
		{scheduler.ErrStopped, 503, "scheduler: stopped"},
		{&scheduler.InvalidError{Field: "name", Detail: "is empty"}, 400, "Invalid name: is empty"},
		{&scheduler.FunctionExistsError{Key: f1}, 400, "Function f1 already exists"},
		{wrap(&scheduler.FunctionNotFoundError{Key: f1}), 404, "Function f1 doesn't exist"},
		{scheduler.ErrNoChange, 400, "Update contains no change"},
		{ErrNoLeader, 500, "Leader cannot be determined"},
		{wrap(context.DeadlineExceeded), 504, "actor: step: context deadline exceeded"},
		{context.Canceled, 503, "context canceled"},
		{badRequest("bad %s", "x"), 400, "bad x"},
		{errors.New("disk full"), 500, "disk full"},
	}
	for _, tc := range cases {
		status, reason := statusOf(tc.err)
		if status != tc.status || reason != tc.reason {
			t.Errorf("%v: (%d, %q), want (%d, %q)", tc.err, status, reason, tc.status, tc.reason)
		}
	}
}
