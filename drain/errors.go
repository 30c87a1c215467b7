package drain

import (
	"errors"
	"fmt"
)

// Errors with Pulsar's reason texts. The REST layer maps each to its status
// code in one table (409, 400, 412, 400).
var (
	ErrDrainInProgress = errors.New("Another drain is in progress")
	ErrTooFewWorkers   = errors.New("Too few workers (need at least 2)")
)

// PriorDrainError is returned when the target still has a drain record.
type PriorDrainError struct{ Worker string }

func (e *PriorDrainError) Error() string {
	return fmt.Sprintf("Worker %s was not yet removed after a prior drain op; try later", e.Worker)
}

// UnknownWorkerError is returned when the target is not a live member.
type UnknownWorkerError struct{ Worker string }

func (e *UnknownWorkerError) Error() string {
	return fmt.Sprintf("Worker %s is not among the current workers in the system", e.Worker)
}

// CapacityError is returned by the dry run when the other workers cannot take
// every instance of the target and the caller did not ask for force.
type CapacityError struct {
	Worker   string
	Unplaced int
	Total    int
	Detail   string
}

func (e *CapacityError) Error() string {
	return fmt.Sprintf("Cannot drain worker %s: %d of %d instances do not fit on the other workers (%s); retry with force to drain anyway",
		e.Worker, e.Unplaced, e.Total, e.Detail)
}

// NoRecordError is returned by undrain when there is nothing to undo.
type NoRecordError struct{ Worker string }

func (e *NoRecordError) Error() string {
	return fmt.Sprintf("Worker %s not found in drain records", e.Worker)
}

// InvalidOptionError reports a drain option that can never be honoured.
type InvalidOptionError struct{ Option, Detail string }

func (e *InvalidOptionError) Error() string {
	return fmt.Sprintf("Invalid drain option %s: %s", e.Option, e.Detail)
}
