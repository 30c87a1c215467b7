package drain

import (
	"fmt"
	"time"
)

// Status is the wire status of a drain, as in Pulsar's LongRunningProcessStatus.
type Status string

// The four statuses Pulsar knows. NOT_RUN is only reported for a worker id
// that is empty; a fresh drain starts at RUNNING.
const (
	NotRun  Status = "NOT_RUN"
	Running Status = "RUNNING"
	Success Status = "SUCCESS"
	Error   Status = "ERROR"
)

// Terminal reports whether no further transition is allowed.
func (s Status) Terminal() bool { return s == Success || s == Error }

// Options are the caller's choices for one drain. The zero value is a plain
// Pulsar drain: no deadline, no force, the configured parallelism.
type Options struct {
	// Deadline, if not zero, is the absolute time by which the drain must
	// be done. It is absolute so that it keeps counting across a leader
	// failover.
	Deadline time.Time `json:"deadline,omitempty"`
	// Force lets a drain start although the capacity dry run says that not
	// everything fits, and at the deadline stops what is left on the
	// source and places it break-before-make.
	Force bool `json:"force,omitempty"`
	// MaxParallel caps the moves in flight off this worker; 0 means the
	// configured default.
	MaxParallel int `json:"maxParallel,omitempty"`
	// Reason and RequestedBy are recorded for operators.
	Reason      string `json:"reason,omitempty"`
	RequestedBy string `json:"requestedBy,omitempty"`
}

// Validate rejects options that can never make sense.
func (o Options) Validate(now time.Time) error {
	if o.MaxParallel < 0 {
		return &InvalidOptionError{Option: "maxParallel", Detail: "must not be negative"}
	}
	if !o.Deadline.IsZero() && !o.Deadline.After(now) {
		return &InvalidOptionError{Option: "deadline", Detail: "must be in the future"}
	}
	return nil
}

// Record is the state of one drain. Counts always satisfy
// Total == Moved + Remaining, and while RUNNING, Remaining is the number of
// instances whose owner is still Worker.
type Record struct {
	Worker      string    `json:"workerId"`
	Status      Status    `json:"status"`
	LastError   string    `json:"lastError"`
	RequestedBy string    `json:"requestedBy,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	StartedAt   time.Time `json:"startedAt"`
	FinishedAt  time.Time `json:"finishedAt,omitzero"`
	Deadline    time.Time `json:"deadline,omitzero"`
	Force       bool      `json:"force,omitempty"`
	MaxParallel int       `json:"maxParallel"`
	Total       int       `json:"total"`
	Moved       int       `json:"moved"`
	Remaining   int       `json:"remaining"`
	InFlight    int       `json:"inFlight"`
	// Unplaced counts instances that a forced drain stopped at its
	// deadline without finding another worker for them.
	Unplaced int `json:"unplaced,omitempty"`
}

// Start makes a new RUNNING record for worker holding n instances.
func Start(worker string, n int, opts Options, defaultParallel int, now time.Time) Record {
	p := opts.MaxParallel
	if p <= 0 {
		p = defaultParallel
	}
	if p <= 0 {
		p = 1
	}
	return Record{
		Worker:      worker,
		Status:      Running,
		RequestedBy: opts.RequestedBy,
		Reason:      opts.Reason,
		StartedAt:   now,
		Deadline:    opts.Deadline,
		Force:       opts.Force,
		MaxParallel: p,
		Total:       n,
		Remaining:   n,
	}
}

// Observe sets the live counts of a RUNNING record.
func (r *Record) Observe(remaining, inFlight int) {
	if r.Status != Running {
		return
	}
	r.Remaining = remaining
	r.InFlight = inFlight
	r.Total = r.Moved + r.Remaining
}

// Finish ends a RUNNING record. A non-empty lastError means ERROR.
// Finishing a record that is not RUNNING is a programming error.
func (r *Record) Finish(now time.Time, lastError string) {
	if r.Status != Running {
		panic(fmt.Sprintf("drain: invalid transition [%s -> finished] for %s", r.Status, r.Worker))
	}
	r.Status = Success
	if lastError != "" {
		r.Status = Error
	}
	r.LastError = lastError
	r.FinishedAt = now
	r.InFlight = 0
}

// DeadlinePassed reports whether the drain has a deadline at or before now.
func (r *Record) DeadlinePassed(now time.Time) bool {
	return !r.Deadline.IsZero() && !now.Before(r.Deadline)
}

// NotFound is what Pulsar reports for a worker without a record.
func NotFound(worker string) Record {
	return Record{Worker: worker, Status: Error, LastError: fmt.Sprintf("Worker %s not found in drain records", worker)}
}
