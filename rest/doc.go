// Package rest is fworker's HTTP edge: it serves the Java Functions Worker's
// REST contract (the /admin/v2 worker and worker-stats routes, the
// /admin/v3/functions routes, and the root /metrics, /initialized and
// /config) with gin, so that pulsar-admin, pulsarctl and the Go admin client
// pulsaradmin work unchanged, plus a few documented extensions (drain
// options, undrain, cordon, the drain list and an event stream). The full
// route list, with codes and bodies, is docs/api.md.
//
// # Who owns what
//
//   - The worker package owns all state and implements [Backend]; handlers
//     keep none and never touch scheduling state. Every handler is a thin
//     translation from an HTTP request to one Backend call and back.
//   - errors.go is the only place that turns an error into a status code and
//     a {"reason": ...} body. Backend errors carry Pulsar's reason texts
//     (packages drain and scheduler); this package adds none of its own to
//     them.
//   - redirect.go decides where a non-leader sends a leader-only call (a 307
//     with Pulsar's Location), and proxy.go forwards function writes from a
//     non-leader to the leader (a reverse proxy, as the Java worker does).
//   - drainopts.go parses our drain-option query parameters; nothing else
//     reads them.
//   - forwarded.go is the marker for requests one worker sends another on a
//     client's behalf; the handler turns its header into a context mark
//     ([WithForwarded]) that the Backend reads, and the proxy sets it.
//
// # Concurrency
//
// The handler returned by [New] is safe for concurrent use; it holds only
// immutable configuration. Backend must be safe for concurrent use. A
// handler's Backend call runs under the request's context, so a client that
// goes away cancels it; the Server-Sent Events stream ends the same way.
//
// Logging goes to the *slog.Logger in [Options]; nothing is logged through
// gin's default logger, and gin runs in release mode.
package rest
