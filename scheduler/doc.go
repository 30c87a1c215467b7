// Package scheduler is fworker's control-plane core: function metadata,
// instance assignments, moves between workers, drains and cordons.
//
// Ownership. All scheduling state lives in one Core value. Core is not safe
// for concurrent use and never needs to be: exactly one goroutine, the Actor
// (actor.go), owns it. Every fact that changes scheduling state (membership,
// function create/update/delete, instance started/stopped acks, worker
// reports, drain, undrain, cordon, rebalance, ticks) is a Message handed to
// Core.Step in the order the actor received it. Reads are Messages too, so a
// read sees a consistent state by construction: no callback can land halfway
// through building a view (the Druid rebalance race cannot happen here).
//
// Purity. Core has no goroutines, no clock and no unseeded randomness. Time
// is the argument of Step; ties in placement are broken by a seeded rank. The
// same messages at the same times give the same effects, which is what the
// simulation tests rely on.
//
// Effects. Step records what must happen outside (persist an assignment,
// a function or a drain record; emit an event) and the actor takes them with
// Ready and applies them before it answers the request that caused them.
// Workers do not receive commands: they reconcile against the published
// assignments (Assignment.DesiredOn) and acknowledge with the generation they
// were given, so duplicated, reordered or stale acks are harmless.
//
// Moves are make-before-break: Starting (source and target both run the
// instance) -> Stopping (target confirmed; only the target should run it) ->
// done (target owns it). Forced moves skip waiting for the source.
package scheduler
