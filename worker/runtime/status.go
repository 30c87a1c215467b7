package runtime

import (
	"time"

	"github.com/fworker/fworker/scheduler"
)

// State is where an instance's supervisor stands.
type State string

const (
	// StateWaiting: the previous generation of the same ID is still stopping.
	StateWaiting State = "waiting"
	// StateStarting: preparing and exec'ing the process.
	StateStarting State = "starting"
	// StateRunning: the process is alive.
	StateRunning State = "running"
	// StateBackoff: the last run failed; waiting before the next attempt.
	StateBackoff State = "backoff"
	// StateStopping: asked to stop; SIGTERM sent, process not yet gone.
	StateStopping State = "stopping"
	// StateDone: stopped, set just before the Stopped event; Status then
	// reports the instance as gone.
	StateDone State = "done"
)

// InstanceStatus is a snapshot of one supervised instance.
type InstanceStatus struct {
	ID      scheduler.InstanceID
	Gen     uint64
	Version uint64
	State   State
	// Running is true while the process is alive (also while stopping).
	Running bool
	// PID and StartedAt describe the current process, if Running, or
	// the last one.
	PID       int
	StartedAt time.Time
	// NumRestarts counts start attempts after the first one.
	NumRestarts int
	// LastError is the last failure (start error or unexpected exit).
	LastError string
}
