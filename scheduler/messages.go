package scheduler

import "github.com/fworker/fworker/drain"

// Message is anything the core can be told or asked. Every message is applied
// by Core.Step, one at a time, in arrival order.
type Message interface{ isMessage() }

// Membership.
type (
	// SetMembership is the whole current membership, as the cluster
	// backend sees it. Workers missing from it have departed.
	SetMembership struct{ Workers []WorkerInfo }
	// WorkerJoined adds or refreshes one member.
	WorkerJoined struct{ Worker WorkerInfo }
	// WorkerLeft removes one member.
	WorkerLeft struct{ ID string }
)

// Function metadata. Replies: Function for create and update.
type (
	CreateFunction struct{ Spec FunctionSpec }
	UpdateFunction struct{ Spec FunctionSpec }
	DeleteFunction struct{ Key FunctionKey }
	// SetInstanceState starts (Running) or stops one instance, or all of
	// them with Index -1, as Pulsar's start/stop endpoints do.
	SetInstanceState struct {
		Key     FunctionKey
		Index   int
		Running bool
	}
	// RestartInstance restarts one instance (Index -1: all) where it runs.
	RestartInstance struct {
		Key   FunctionKey
		Index int
	}
)

// Observations from workers. Gen is the generation the worker was asked to
// run (Assignment.DesiredOn); acks for any other generation are ignored.
type (
	InstanceStarted struct {
		Worker   string
		Instance InstanceID
		Gen      uint64
	}
	InstanceStopped struct {
		Worker   string
		Instance InstanceID
		Gen      uint64
	}
	// InstanceFailed: the worker could not start it or it crashed.
	InstanceFailed struct {
		Worker   string
		Instance InstanceID
		Gen      uint64
		Error    string
	}
	// WorkerReport is a worker's full view: what it runs, after applying
	// every assignment record up to revision Rev. It repairs lost acks.
	WorkerReport struct {
		Worker  string
		Rev     uint64
		Running []Run
	}
)

// Run is one instance a worker runs, with its generation.
type Run struct {
	Instance InstanceID
	Gen      uint64
}

// Operator requests.
type (
	// Drain asks to move every instance off Worker. Reply: drain.Record.
	Drain struct {
		Worker  string
		Options drain.Options
	}
	// Undrain cancels a running drain or readmits a drained worker.
	Undrain struct{ Worker string }
	// Cordon / Uncordon toggle schedulability without moving anything.
	Cordon   struct{ Worker string }
	Uncordon struct{ Worker string }
	// Rebalance spreads instances until max - min <= 1. Periodic ones are
	// silent no-ops when they cannot run.
	Rebalance struct{ Periodic bool }
)

// Time. The actor sends these from cron; the core never reads a clock.
type (
	// Tick advances moves (timeouts), drains (deadlines) and placement.
	Tick struct{}
	// CheckFailures reschedules instances of workers that have been gone
	// longer than RescheduleTimeout.
	CheckFailures struct{}
	// CleanupDrains removes records of workers gone longer than
	// DrainRecordRetention, and forgets such workers.
	CleanupDrains struct{}
)

// Reads. Replies: drain.Record, []drain.Record, Snapshot.
type (
	GetDrainStatus struct{ Worker string }
	ListDrains     struct{}
	GetSnapshot    struct{}
)

func (SetMembership) isMessage()    {}
func (WorkerJoined) isMessage()     {}
func (WorkerLeft) isMessage()       {}
func (CreateFunction) isMessage()   {}
func (UpdateFunction) isMessage()   {}
func (DeleteFunction) isMessage()   {}
func (SetInstanceState) isMessage() {}
func (RestartInstance) isMessage()  {}
func (InstanceStarted) isMessage()  {}
func (InstanceStopped) isMessage()  {}
func (InstanceFailed) isMessage()   {}
func (WorkerReport) isMessage()     {}
func (Drain) isMessage()            {}
func (Undrain) isMessage()          {}
func (Cordon) isMessage()           {}
func (Uncordon) isMessage()         {}
func (Rebalance) isMessage()        {}
func (Tick) isMessage()             {}
func (CheckFailures) isMessage()    {}
func (CleanupDrains) isMessage()    {}
func (GetDrainStatus) isMessage()   {}
func (ListDrains) isMessage()       {}
func (GetSnapshot) isMessage()      {}
