package scheduler

import (
	"time"

	"github.com/fworker/fworker/drain"
)

// Effect is something the shell must carry out after a Step: persist and
// publish state, or emit an event. Effects are returned in order and must be
// applied in order.
type Effect interface{ isEffect() }

type (
	// SaveAssignment persists and publishes an assignment record.
	SaveAssignment struct{ Assignment Assignment }
	// RemoveAssignment removes an instance's record (a tombstone).
	RemoveAssignment struct {
		Instance InstanceID
		Rev      uint64
	}
	SaveFunction   struct{ Function Function }
	RemoveFunction struct{ Key FunctionKey }
	SaveDrain      struct{ Record drain.Record }
	RemoveDrain    struct{ Worker string }
	SaveCordon     struct {
		Worker   string
		Cordoned bool
	}
	// Event is a human-readable fact for the events stream and the log.
	Event struct {
		Time     time.Time `json:"time"`
		Type     string    `json:"type"`
		Worker   string    `json:"workerId,omitempty"`
		Instance string    `json:"instance,omitempty"`
		Detail   string    `json:"detail,omitempty"`
	}
)

func (SaveAssignment) isEffect()   {}
func (RemoveAssignment) isEffect() {}
func (SaveFunction) isEffect()     {}
func (RemoveFunction) isEffect()   {}
func (SaveDrain) isEffect()        {}
func (RemoveDrain) isEffect()      {}
func (SaveCordon) isEffect()       {}
func (Event) isEffect()            {}

// Event types.
const (
	EvWorkerJoined   = "worker-joined"
	EvWorkerLeft     = "worker-left"
	EvWorkerCordon   = "worker-cordoned"
	EvWorkerUncordon = "worker-uncordoned"
	EvScheduled      = "instances-scheduled"
	EvRescheduled    = "instances-rescheduled"
	EvMoveStarted    = "move-started"
	EvMoveConfirmed  = "move-confirmed"
	EvMoveDone       = "move-done"
	EvMoveRetried    = "move-retried"
	EvMoveCancelled  = "move-cancelled"
	EvDrainStarted   = "drain-started"
	EvDrainProgress  = "drain-progress"
	EvDrainFinished  = "drain-finished"
	EvDrainRemoved   = "drain-removed"
	EvRebalance      = "rebalance-started"
)
