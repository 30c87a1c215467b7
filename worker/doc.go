// Package worker is one fworker worker node: it joins the cluster, follows
// the persisted scheduling state, runs the instances assigned to it through
// the process runtime, reports what runs to the leader, and, while it is the
// leader, owns the scheduler actor. Service implements rest.Backend.
//
// Goroutines and ownership:
//   - follow: the only writer of the mirror (the local read model of
//     functions, assignments and drain records); readers take its RWMutex.
//   - reconcile: turns the mirror into the runtime's desired set, fetching
//     packages; the only caller of Runtime.Reconcile.
//   - report: sends a WorkerReport every ReportInterval and on leader change.
//   - lead: watches membership; while this worker leads it runs the
//     scheduler actor (which alone owns scheduling state), its cron jobs and
//     the forwarder of worker observations into the actor.
//
// REST handlers call Service methods from any goroutine: reads come from the
// mirror or the runtime, changes go to the actor as messages.
package worker
