package scheduler

import (
	"errors"
	"fmt"
)

// Scheduler errors with Pulsar's reason texts where Pulsar has one. The
// drain errors live in package drain. The REST layer maps all of them to
// status codes in one table.
var (
	ErrRebalanceInProgress = errors.New("Rebalance already in progress")
	// ErrNotReady is returned before the first membership view arrived.
	ErrNotReady = errors.New("Function worker service is not done initializing. Please try again in a little while.")
	// ErrStopped is returned by the actor after it stopped.
	ErrStopped = errors.New("scheduler: stopped")
)

// InvalidError is bad input: HTTP 400.
type InvalidError struct{ Field, Detail string }

func (e *InvalidError) Error() string { return fmt.Sprintf("Invalid %s: %s", e.Field, e.Detail) }

// FunctionExistsError: HTTP 400, as Pulsar answers on create.
type FunctionExistsError struct{ Key FunctionKey }

func (e *FunctionExistsError) Error() string {
	return fmt.Sprintf("Function %s already exists", e.Key.Name)
}

// FunctionNotFoundError: HTTP 404.
type FunctionNotFoundError struct{ Key FunctionKey }

func (e *FunctionNotFoundError) Error() string {
	return fmt.Sprintf("Function %s doesn't exist", e.Key.Name)
}
