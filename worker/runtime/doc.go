// Package runtime runs function instances as OS processes on one worker
// and supervises them: it is the worker's process runtime.
//
// # Ownership and goroutines
//
// A Runtime owns the set of supervisors, guarded by Runtime.mu. Reconcile,
// Running, Status and Close may be called from any goroutine; the worker's
// assignment loop is expected to call Reconcile with the complete desired
// set each time the published assignments change.
//
// Every instance is supervised by its own goroutine (supervisor.run), started
// by Reconcile. That goroutine alone starts the instance's process, restarts
// it after a crash, stops it, and writes the supervisor's status (guarded by
// supervisor.mu so Status and Running can read it). Each running process has
// one more goroutine (process.watch) that waits for it to exit, kills what is
// left of its process group, reaps it and reports the exit to the supervisor.
//
// Events (Options.Events) are called on supervisor goroutines, never with a
// lock held. For one instance ID they arrive in order: a generation that
// replaces another is started only after the old one's Stopped event, so a
// receiver sees Stopped(old gen) before Started(new gen). Every supervisor
// ends with exactly one Stopped event, whether or not its process was
// running at the time (the leader takes it as the stop acknowledgement).
//
// # Lifecycle of an instance
//
// Reconcile compares the desired set with the current one by InstanceID.
// A new ID gets a supervisor; an ID no longer desired, or desired with a
// different Gen or Version, has its supervisor stopped; in the latter case a
// new supervisor for the new Gen/Version waits for the old one to finish and
// then starts. Any other change (PackagePath, Spec with the same Version) is
// ignored: a new Version is how a function changes.
//
// Started is sent as soon as the process has been exec'd successfully; there
// is no startup window, so a process that dies at once shows as Started then
// Failed. When the process exits while it is wanted (any exit, including
// status 0: functions are meant to run until stopped), Failed is sent with
// the exit status and the instance is restarted after a backoff that starts
// at Options.BackoffMin and doubles up to Options.BackoffMax. The backoff
// goes back to BackoffMin when the process had stayed up for at least
// Options.BackoffReset. A start that fails (missing executable or
// interpreter, unwritable directory ...) is also Failed and retried on the
// same backoff. NumRestarts counts start attempts after the first.
//
// Stopping sends SIGTERM to the instance's process group, then SIGKILL to the
// group after Options.StopGrace if the main process has not exited. Once the
// main process has exited (for any reason), whatever is left in its process
// group is SIGKILLed before the process is reaped. Close stops every
// instance concurrently and waits for them.
//
// Backoff and stop-grace timers, and the timestamps in statuses and logs,
// come from Options.Clock so tests can drive them.
//
// # Instance contract
//
// See CONTRACT.md in this directory for the full text. In short, the
// process is run with:
//
//   - GO: the package file itself as the executable; JAVA: java -cp <package>
//     <className> (className from the "className" field of the details JSON),
//     or java -jar <package> without one; PYTHON: python3 <package>. A
//     missing interpreter is a Failed event with a clear error.
//   - the worker's environment, then Options.Env, then FWORKER_TENANT,
//     FWORKER_NAMESPACE, FWORKER_NAME, FWORKER_INSTANCE_ID (the index),
//     FWORKER_FQFN (tenant/namespace/name), FWORKER_INSTANCE
//     (tenant/namespace/name:index), FWORKER_PARALLELISM,
//     FWORKER_FUNCTION_VERSION, FWORKER_WORKER_ID, FWORKER_GEN and
//     FWORKER_FUNCTION_DETAILS_FILE (a JSON file written before each start).
//   - working directory <Dir>/instances/<tenant>/<namespace>/<name>/<index>.
//   - stdout and stderr appended to <Dir>/logs/<tenant>/<namespace>/<name>/<index>.log.
//   - its own process group (and PR_SET_PDEATHSIG=SIGKILL on the main process).
//
// The package is Linux only (process groups, Pdeathsig, waitid).
package runtime
