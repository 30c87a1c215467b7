// Package drain holds the drain records of fworker and the rules that admit,
// advance and end a drain.
//
// It is pure: no goroutines, no clock, no I/O. Time arrives as arguments.
// A drain Record is a value; the only copy that may change lives inside the
// scheduler core (package scheduler), which is owned by exactly one goroutine,
// the scheduler actor. Everyone else (REST handlers, the CLI, persistence)
// sees copies.
//
// Status only ever moves RUNNING -> SUCCESS or RUNNING -> ERROR. A record
// whose worker is still present keeps that worker out of scheduling, as in
// Pulsar: undrain removes the record and readmits the worker.
//
// The error values here carry Pulsar's reason texts so that the REST layer
// can answer exactly as the Java Functions Worker does.
package drain
