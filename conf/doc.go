// Package conf turns a functions_worker.yml file, FWORKER_* environment
// variables and command-line flags into one validated [Config].
//
// # Ownership
//
// conf is the only package that imports viper. [Load] runs once at start-up
// (cmd calls it) and returns a plain value; nothing in conf is global and
// nothing reloads. Other packages never see viper or the file: cmd hands them
// their own small config built by the helpers ([Config.SchedulerConfig],
// [Config.Periods], [Config.Logger], ...), so the scheduler's defaults stay
// in package scheduler and the flag/env/file rules stay here.
//
// # Sources and precedence
//
// flags > environment > file > defaults. Key names are Pulsar's
// (functions_worker.yml, WorkerConfig) where Pulsar has the setting, so a
// Pulsar file can be pointed at fworker unchanged; fworker's own keys use the
// same camelCase style. Keys are matched case-insensitively (viper); a key
// whose spelling differs from ours only in case is read, with a warning,
// because Pulsar would ignore it.
//
//   - File: YAML, optional. A missing file that was asked for is an error.
//     Unknown top-level keys are warnings; Pulsar keys that fworker does not
//     use (the list in keys.go) are accepted silently. A null value ("key:"
//     with nothing after it) means "not set", as in Pulsar.
//   - Environment: each key K is read from FWORKER_<upper(K)> and from
//     FWORKER_<UPPER_SNAKE(K)>, for example FWORKER_WORKERPORT and
//     FWORKER_WORKER_PORT, FWORKER_PULSARWEBSERVICEURL and
//     FWORKER_PULSAR_WEB_SERVICE_URL. Setting both to different values is an
//     error. Empty variables count as unset. Lists are comma-separated.
//     Other FWORKER_* variables get a warning, except FWORKER_CONFIG, which
//     is left to cmd (for example to name the file).
//   - Flags: a flag in the given FlagSet is bound to a key when its name is
//     the key ("--workerPort") or the key in kebab case ("--worker-port").
//     Only flags set on the command line count; flag defaults never override
//     the file, the environment or conf's defaults.
//
// # Validation
//
// Load reports all the problems it finds, each as an [*Error] naming the
// key, the value and where it came from, joined with [errors.Join]: first
// every value that cannot be read as its type, then, once all values read,
// every range and consistency check. Warnings (unknown keys, values
// fworker rounds) come back as strings for cmd to log.
//
// Load touches no package state and may be called concurrently; it reads
// the process environment.
package conf
