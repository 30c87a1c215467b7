package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

// reqError is a fault the handler finds itself (a bad parameter, a body that
// is too large); it carries its own status.
type reqError struct {
	status int
	reason string
}

func (e *reqError) Error() string { return e.reason }

func badRequest(format string, args ...any) error {
	return &reqError{status: http.StatusBadRequest, reason: fmt.Sprintf(format, args...)}
}

// errNotInitialized is Pulsar's 503 while the worker service starts.
var errNotInitialized = scheduler.ErrNotReady

// A rule matches an error and names the error whose text is the reason, so
// that a wrapped Pulsar error still answers with Pulsar's exact text.
type rule struct {
	match  func(error) error
	status int
}

func is(target error) func(error) error {
	return func(err error) error {
		if errors.Is(err, target) {
			return target
		}
		return nil
	}
}

func as[T error]() func(error) error {
	return func(err error) error {
		if t, ok := errors.AsType[T](err); ok {
			return t
		}
		return nil
	}
}

func whole(target error) func(error) error {
	return func(err error) error {
		if errors.Is(err, target) {
			return err
		}
		return nil
	}
}

// errorTable is the one mapping from domain errors to HTTP statuses. The
// first match wins. ErrNotLeader is not here: a leader-only call that gets
// it redirects to the leader instead (see [server.fail]).
var errorTable = []rule{
	// Pulsar's drain admission, in Pulsar's codes (reference §1.3).
	{is(drain.ErrDrainInProgress), http.StatusConflict},
	{is(drain.ErrTooFewWorkers), http.StatusBadRequest},
	{as[*drain.PriorDrainError](), http.StatusPreconditionFailed},
	{as[*drain.UnknownWorkerError](), http.StatusBadRequest},
	// Ours: the capacity dry run refused the drain. 409 because the
	// request conflicts with the cluster's current state and may succeed
	// later (or now, with force=true); it is not a malformed request.
	{as[*drain.CapacityError](), http.StatusConflict},
	{as[*drain.NoRecordError](), http.StatusNotFound},
	{as[*drain.InvalidOptionError](), http.StatusBadRequest},

	{is(scheduler.ErrRebalanceInProgress), http.StatusBadRequest},
	{is(scheduler.ErrNotReady), http.StatusServiceUnavailable},
	{is(scheduler.ErrStopped), http.StatusServiceUnavailable},
	{as[*scheduler.InvalidError](), http.StatusBadRequest},
	{as[*scheduler.FunctionExistsError](), http.StatusBadRequest},
	{as[*scheduler.FunctionNotFoundError](), http.StatusNotFound},
	{is(scheduler.ErrNoChange), http.StatusBadRequest},

	{is(ErrNoLeader), http.StatusInternalServerError},
	{whole(context.DeadlineExceeded), http.StatusGatewayTimeout},
	{whole(context.Canceled), http.StatusServiceUnavailable},
}

// statusOf maps err to a status and the reason text to send. Anything not in
// the table is a 500 with the error's text.
func statusOf(err error) (int, string) {
	if re, ok := errors.AsType[*reqError](err); ok {
		return re.status, re.reason
	}
	for _, r := range errorTable {
		if m := r.match(err); m != nil {
			return r.status, m.Error()
		}
	}
	return http.StatusInternalServerError, err.Error()
}

// errorBody is Pulsar's ErrorData.
type errorBody struct {
	Reason string `json:"reason"`
}

func writeError(w http.ResponseWriter, status int, reason string) {
	writeJSON(w, status, errorBody{Reason: reason})
}
