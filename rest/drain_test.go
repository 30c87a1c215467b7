package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"

	"github.com/fworker/fworker/drain"
	"github.com/fworker/fworker/scheduler"
)

func drainReturns(err error) func(*fakeBackend) {
	return func(f *fakeBackend) {
		f.DrainFn = func(_ context.Context, w string, _ drain.Options) error {
			f.calls.add("drain %s", w)
			return err
		}
	}
}

func undrainReturns(err error) func(*fakeBackend) {
	return func(f *fakeBackend) {
		f.UndrainFn = func(_ context.Context, w string) error {
			f.calls.add("undrain %s", w)
			return err
		}
	}
}

func cordonReturns(err error) func(*fakeBackend) {
	return func(f *fakeBackend) {
		f.CordonFn = func(_ context.Context, w string, on bool) error {
			f.calls.add("cordon %s %v", w, on)
			return err
		}
	}
}

func statusReturns(rec drain.Record, err error) func(*fakeBackend) {
	return func(f *fakeBackend) {
		f.DrainStatusFn = func(_ context.Context, w string) (drain.Record, error) {
			f.calls.add("status %s", w)
			return rec, err
		}
	}
}

// asFollower runs setup on w2, a follower of w1.
func asFollower(setup func(*fakeBackend)) func(*fakeBackend) {
	return func(f *fakeBackend) {
		f.follower()
		if setup != nil {
			setup(f)
		}
	}
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestDrainRoutes(t *testing.T) {
	const leaderDrain = "http://host-1:6750/admin/v2/worker/leader/drain?workerId="
	running := drain.Record{Worker: "w2", Status: drain.Running, StartedAt: t0, MaxParallel: 2,
		Total: 3, Moved: 1, Remaining: 2, InFlight: 1, RequestedBy: "ops", Reason: "kernel"}
	cases := []routeCase{
		// Pulsar's PUT drain, on the leader.
		{name: "drain self", method: "PUT", path: "/worker/drain", status: 204, body: "",
			setup: drainReturns(nil), calls: []string{"drain w1"}},
		{name: "drain ignores workerId on the self form", method: "PUT", path: "/worker/drain?workerId=w2", status: 204,
			setup: drainReturns(nil), calls: []string{"drain w1"}},
		{name: "drain other", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 204,
			setup: drainReturns(nil), calls: []string{"drain w2"}},
		{name: "drain empty id is self", method: "PUT", path: "/worker/leader/drain?workerId=", status: 204,
			setup: drainReturns(nil), calls: []string{"drain w1"}},
		{name: "drain missing id is self", method: "PUT", path: "/worker/leader/drain", status: 204,
			setup: drainReturns(nil), calls: []string{"drain w1"}},
		{name: "drain in progress", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 409,
			setup: drainReturns(drain.ErrDrainInProgress), reason: "Another drain is in progress"},
		{name: "drain too few", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 400,
			setup: drainReturns(drain.ErrTooFewWorkers), reason: "Too few workers (need at least 2)"},
		{name: "drain prior", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 412,
			setup:  drainReturns(fmt.Errorf("actor: %w", &drain.PriorDrainError{Worker: "w2"})),
			reason: "Worker w2 was not yet removed after a prior drain op; try later"},
		{name: "drain unknown", method: "PUT", path: "/worker/leader/drain?workerId=w9", status: 400,
			setup:  drainReturns(&drain.UnknownWorkerError{Worker: "w9"}),
			reason: "Worker w9 is not among the current workers in the system"},
		{name: "drain capacity", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 409,
			setup:  drainReturns(&drain.CapacityError{Worker: "w2", Unplaced: 1, Total: 3, Detail: "cpu"}),
			reason: "Cannot drain worker w2: 1 of 3 instances do not fit on the other workers (cpu); retry with force to drain anyway"},
		{name: "drain bad option from backend", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 400,
			setup:  drainReturns(&drain.InvalidOptionError{Option: "maxParallel", Detail: "too many"}),
			reason: "Invalid drain option maxParallel: too many"},
		{name: "drain timeout", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 504,
			setup: drainReturns(context.DeadlineExceeded), reason: "context deadline exceeded"},
		{name: "drain stopped", method: "PUT", path: "/worker/leader/drain?workerId=w2", status: 503,
			setup: drainReturns(scheduler.ErrStopped), reason: "scheduler: stopped"},
		{name: "drain bad deadline", method: "PUT", path: "/worker/leader/drain?workerId=w2&deadline=soon", status: 400,
			reason: `Invalid drain option deadline: "soon" is neither an RFC 3339 time nor a duration such as 10m`},
		{name: "drain bad query", method: "PUT", path: "/worker/leader/drain?workerId=%zz", status: 400,
			reason: `Invalid query string: invalid URL escape "%zz"`},

		// Redirects from a follower: Pulsar's leader form, on /admin/v2,
		// with the resolved id, whatever mount the request used.
		{name: "follower drain self", method: "PUT", path: "/worker/drain", status: 307,
			setup: asFollower(nil), location: leaderDrain + "w2"},
		{name: "follower drain other", method: "PUT", path: "/worker/leader/drain?workerId=w3", status: 307,
			setup: asFollower(nil), location: leaderDrain + "w3"},
		{name: "follower drain empty id", method: "PUT", path: "/worker/leader/drain?workerId=", status: 307,
			setup: asFollower(nil), location: leaderDrain + "w2"},
		{name: "follower drain escapes id", method: "PUT", path: "/worker/leader/drain?workerId=a%26b%20c", status: 307,
			setup: asFollower(nil), location: leaderDrain + "a%26b+c"},
		{name: "follower drain keeps options", method: "PUT",
			path: "/worker/leader/drain?force=true&workerId=w3&deadline=10m&reason=kernel+upgrade", status: 307,
			setup: asFollower(nil), location: leaderDrain + "w3&deadline=10m&force=true&reason=kernel+upgrade"},
		{name: "follower drain status", method: "GET", path: "/worker/drain", status: 307,
			setup: asFollower(nil), location: leaderDrain + "w2"},
		{name: "follower drain status other", method: "GET", path: "/worker/leader/drain?workerId=w3", status: 307,
			setup: asFollower(nil), location: leaderDrain + "w3"},
		{name: "follower undrain", method: "DELETE", path: "/worker/drain", status: 307,
			setup: asFollower(nil), location: leaderDrain + "w2"},
		{name: "follower cordon", method: "PUT", path: "/worker/leader/cordon?workerId=w3", status: 307,
			setup: asFollower(nil), location: "http://host-1:6750/admin/v2/worker/leader/cordon?workerId=w3"},
		{name: "follower uncordon", method: "DELETE", path: "/worker/leader/cordon", status: 307,
			setup: asFollower(nil), location: "http://host-1:6750/admin/v2/worker/leader/cordon?workerId=w2"},
		{name: "follower drains", method: "GET", path: "/worker/drains", status: 307,
			setup: asFollower(nil), location: "http://host-1:6750%s/worker/drains"},
		{name: "leader lost during drain", method: "PUT", path: "/worker/drain", status: 307,
			setup: func(f *fakeBackend) {
				drainReturns(ErrNotLeader)(f)
				f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return w2, true }
			},
			location: "http://host-2:6751/admin/v2/worker/leader/drain?workerId=w1"},
		{name: "follower without leader", method: "PUT", path: "/worker/drain", status: 500,
			setup: asFollower(func(f *fakeBackend) {
				f.LeaderFn = func() (scheduler.WorkerInfo, bool) { return scheduler.WorkerInfo{}, false }
			}),
			reason: "Leader cannot be determined"},

		// Status.
		{name: "status", method: "GET", path: "/worker/leader/drain?workerId=w2", status: 200,
			setup: statusReturns(running, nil), calls: []string{"status w2"},
			body: `{"workerId":"w2","status":"RUNNING","lastError":"","requestedBy":"ops","reason":"kernel","startedAt":"2026-05-01T12:00:00Z","maxParallel":2,"total":3,"moved":1,"remaining":2,"inFlight":1}`},
		{name: "status self", method: "GET", path: "/worker/drain", status: 200,
			setup: statusReturns(drain.NotFound("w1"), nil), calls: []string{"status w1"},
			body: `{"workerId":"w1","status":"ERROR","lastError":"Worker w1 not found in drain records","startedAt":"0001-01-01T00:00:00Z","maxParallel":0,"total":0,"moved":0,"remaining":0,"inFlight":0}`},
		{name: "status no record error is Pulsar's 200", method: "GET", path: "/worker/leader/drain?workerId=w9", status: 200,
			setup: statusReturns(drain.Record{}, &drain.NoRecordError{Worker: "w9"}),
			body:  `{"workerId":"w9","status":"ERROR","lastError":"Worker w9 not found in drain records","startedAt":"0001-01-01T00:00:00Z","maxParallel":0,"total":0,"moved":0,"remaining":0,"inFlight":0}`},
		{name: "status failing", method: "GET", path: "/worker/leader/drain?workerId=w2", status: 500,
			setup: statusReturns(drain.Record{}, fmt.Errorf("disk on fire")), reason: "disk on fire"},

		// Undrain, cordon, list.
		{name: "undrain", method: "DELETE", path: "/worker/leader/drain?workerId=w2", status: 204,
			setup: undrainReturns(nil), calls: []string{"undrain w2"}},
		{name: "undrain self", method: "DELETE", path: "/worker/drain", status: 204,
			setup: undrainReturns(nil), calls: []string{"undrain w1"}},
		{name: "undrain no record", method: "DELETE", path: "/worker/leader/drain?workerId=w9", status: 404,
			setup: undrainReturns(&drain.NoRecordError{Worker: "w9"}), reason: "Worker w9 not found in drain records"},
		{name: "cordon", method: "PUT", path: "/worker/leader/cordon?workerId=w2", status: 204,
			setup: cordonReturns(nil), calls: []string{"cordon w2 true"}},
		{name: "uncordon", method: "DELETE", path: "/worker/leader/cordon?workerId=w2", status: 204,
			setup: cordonReturns(nil), calls: []string{"cordon w2 false"}},
		{name: "cordon unknown", method: "PUT", path: "/worker/leader/cordon?workerId=w9", status: 400,
			setup:  cordonReturns(&drain.UnknownWorkerError{Worker: "w9"}),
			reason: "Worker w9 is not among the current workers in the system"},
		{name: "drains", method: "GET", path: "/worker/drains", status: 200,
			setup: func(f *fakeBackend) {
				f.DrainsFn = func(context.Context) ([]drain.Record, error) { return []drain.Record{running}, nil }
			},
			body: `[{"workerId":"w2","status":"RUNNING","lastError":"","requestedBy":"ops","reason":"kernel","startedAt":"2026-05-01T12:00:00Z","maxParallel":2,"total":3,"moved":1,"remaining":2,"inFlight":1}]`},
		{name: "drains empty", method: "GET", path: "/worker/drains", status: 200, body: `[]`,
			setup: func(f *fakeBackend) {
				f.DrainsFn = func(context.Context) ([]drain.Record, error) { return nil, nil }
			}},
	}
	runRouteCases(t, mounts, cases)
}

// TestDrainStatusDecodesAsPulsar: the record carries Pulsar's
// LongRunningProcessStatus fields.
func TestDrainStatusDecodesAsPulsar(t *testing.T) {
	f := newFake()
	statusReturns(drain.Record{Worker: "w2", Status: drain.Success, Total: 2, Moved: 2}, nil)(f)
	w := serve(t, New(f, Options{}), "GET", "/admin/v2/worker/leader/drain?workerId=w2", nil)
	var st utils.LongRunningProcessStatus
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != utils.SUCCESS || st.LastError != "" {
		t.Fatalf("%+v", st)
	}
}

// TestDrainOptionsReachBackend: the query becomes drain.Options.
func TestDrainOptionsReachBackend(t *testing.T) {
	cases := []struct {
		query string
		hdr   []string
		want  drain.Options
	}{
		{"workerId=w2", nil, drain.Options{RequestedBy: "192.0.2.1"}},
		{"workerId=w2", []string{"X-Requested-By", "nomad"}, drain.Options{RequestedBy: "nomad"}},
		{"workerId=w2&requestedBy=alice", []string{"X-Requested-By", "nomad"}, drain.Options{RequestedBy: "alice"}},
		{"workerId=w2&deadline=10m&force=true&maxParallel=3&reason=kernel+upgrade", nil, drain.Options{
			Deadline: t0.Add(10 * time.Minute), Force: true, MaxParallel: 3, Reason: "kernel upgrade", RequestedBy: "192.0.2.1"}},
		{"workerId=w2&deadline=" + url.QueryEscape("2026-05-01T15:00:00+02:00") + "&force", nil, drain.Options{
			Deadline: t0.Add(time.Hour), Force: true, RequestedBy: "192.0.2.1"}},
		{"workerId=w2&force=false&maxParallel=0&deadline=", nil, drain.Options{RequestedBy: "192.0.2.1"}},
	}
	for _, tc := range cases {
		f := newFake()
		var got drain.Options
		f.DrainFn = func(_ context.Context, _ string, o drain.Options) error { got = o; return nil }
		h := New(f, Options{Now: func() time.Time { return t0 }})
		w := serve(t, h, "PUT", "/admin/v2/worker/leader/drain?"+tc.query, nil, tc.hdr...)
		if w.Code != 204 {
			t.Errorf("%s: %d %s", tc.query, w.Code, w.Body.String())
			continue
		}
		if !got.Deadline.Equal(tc.want.Deadline) {
			t.Errorf("%s: deadline %v, want %v", tc.query, got.Deadline, tc.want.Deadline)
		}
		got.Deadline, tc.want.Deadline = time.Time{}, time.Time{}
		if got != tc.want {
			t.Errorf("%s: options %+v, want %+v", tc.query, got, tc.want)
		}
	}
}
