package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FunctionKey names a function: tenant/namespace/name.
type FunctionKey struct {
	Tenant, Namespace, Name string
}

func (k FunctionKey) String() string { return k.Tenant + "/" + k.Namespace + "/" + k.Name }

// Compare orders keys lexically by tenant, namespace, name.
func (k FunctionKey) Compare(o FunctionKey) int {
	if c := cmp.Compare(k.Tenant, o.Tenant); c != 0 {
		return c
	}
	if c := cmp.Compare(k.Namespace, o.Namespace); c != 0 {
		return c
	}
	return cmp.Compare(k.Name, o.Name)
}

// ParseFunctionKey parses tenant/namespace/name.
func ParseFunctionKey(s string) (FunctionKey, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return FunctionKey{}, &InvalidError{Field: "function", Detail: fmt.Sprintf("%q is not tenant/namespace/name", s)}
	}
	k := FunctionKey{parts[0], parts[1], parts[2]}
	return k, k.Validate()
}

// Validate checks each part is a usable name.
func (k FunctionKey) Validate() error {
	for _, p := range []struct{ field, v string }{{"tenant", k.Tenant}, {"namespace", k.Namespace}, {"name", k.Name}} {
		if err := validName(p.field, p.v); err != nil {
			return err
		}
	}
	return nil
}

// validName accepts what Pulsar accepts in topic-style names and refuses
// the separators that would make instance ids ambiguous.
func validName(field, v string) error {
	if v == "" {
		return &InvalidError{Field: field, Detail: "is empty"}
	}
	if len(v) > 256 {
		return &InvalidError{Field: field, Detail: "is longer than 256 characters"}
	}
	for _, r := range v {
		ok := r == '-' || r == '_' || r == '.' || r == '=' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return &InvalidError{Field: field, Detail: fmt.Sprintf("%q contains %q; use letters, digits, '-', '_', '.', '='", v, r)}
		}
	}
	return nil
}

// InstanceID is one instance of a function: tenant/namespace/name:index.
type InstanceID struct {
	Function FunctionKey
	Index    int
}

func (i InstanceID) String() string { return i.Function.String() + ":" + strconv.Itoa(i.Index) }

// Compare orders by function, then index.
func (i InstanceID) Compare(o InstanceID) int {
	if c := i.Function.Compare(o.Function); c != 0 {
		return c
	}
	return cmp.Compare(i.Index, o.Index)
}

// ParseInstanceID parses the fully qualified form tenant/namespace/name:index.
func ParseInstanceID(s string) (InstanceID, error) {
	at := strings.LastIndexByte(s, ':')
	if at < 0 {
		return InstanceID{}, &InvalidError{Field: "instance", Detail: fmt.Sprintf("%q has no :index", s)}
	}
	k, err := ParseFunctionKey(s[:at])
	if err != nil {
		return InstanceID{}, err
	}
	idx, err := strconv.Atoi(s[at+1:])
	if err != nil || idx < 0 || s[at+1:] != strconv.Itoa(idx) {
		return InstanceID{}, &InvalidError{Field: "instance", Detail: fmt.Sprintf("%q has a bad index", s)}
	}
	return InstanceID{Function: k, Index: idx}, nil
}

// Resources are what one instance needs, or what a worker offers.
type Resources struct {
	CPU  float64 `json:"cpu"`
	RAM  int64   `json:"ram"`
	Disk int64   `json:"disk"`
}

// Pulsar's defaults for a function that names no resources.
var DefaultResources = Resources{CPU: 1, RAM: 1 << 30, Disk: 10 << 30}

// FunctionSpec is what a user declares. Details carries the rest of the
// function configuration opaquely (inputs, output, user config ...): the
// scheduler does not read it, but a change to it is a new version.
type FunctionSpec struct {
	FunctionKey
	Parallelism int       `json:"parallelism"`
	Resources   Resources `json:"resources"`
	Runtime     string    `json:"runtime"`
	Package     string    `json:"package"`
	Details     []byte    `json:"details,omitempty"`
}

// MaxParallelism bounds one function's instance count.
const MaxParallelism = 10000

// Normalize fills defaults and validates.
func (s *FunctionSpec) Normalize() error {
	if err := s.FunctionKey.Validate(); err != nil {
		return err
	}
	if s.Parallelism == 0 {
		s.Parallelism = 1
	}
	if s.Parallelism < 0 || s.Parallelism > MaxParallelism {
		return &InvalidError{Field: "parallelism", Detail: fmt.Sprintf("must be between 1 and %d", MaxParallelism)}
	}
	if s.Resources == (Resources{}) {
		s.Resources = DefaultResources
	}
	r := s.Resources
	if r.CPU < 0 || r.RAM < 0 || r.Disk < 0 || r.CPU != r.CPU || r.CPU > 1e6 {
		return &InvalidError{Field: "resources", Detail: "cpu, ram and disk must be non-negative"}
	}
	switch s.Runtime {
	case "":
		s.Runtime = "GO"
	case "GO", "JAVA", "PYTHON":
	default:
		return &InvalidError{Field: "runtime", Detail: fmt.Sprintf("%q is not one of GO, JAVA, PYTHON", s.Runtime)}
	}
	return nil
}

// Function is a spec with its version, as stored.
type Function struct {
	Spec       FunctionSpec `json:"spec"`
	Version    uint64       `json:"version"`
	CreateTime time.Time    `json:"createTime"`
	// Stopped lists the instance indexes a user stopped (Pulsar's
	// instanceStates STOPPED); they stay assigned but run nowhere.
	Stopped []int `json:"stopped,omitempty"`
}

// IsStopped reports whether instance index i was stopped by a user.
func (f *Function) IsStopped(i int) bool { return slices.Contains(f.Stopped, i) }

// WorkerInfo is a member of the cluster, with Pulsar's JSON names.
type WorkerInfo struct {
	ID       string `json:"workerId"`
	Hostname string `json:"workerHostname"`
	Port     int    `json:"port"`
	// Capacity, when set, bounds the resources placed on the worker.
	Capacity *Resources `json:"capacity,omitempty"`
}

// MovePhase is where a move stands.
type MovePhase string

const (
	// Starting: the target was asked to run the instance; the source
	// keeps running it until the target confirms.
	Starting MovePhase = "STARTING"
	// Stopping: the target confirmed; the source was asked to stop.
	Stopping MovePhase = "STOPPING"
	// Forced: the source was asked to stop before the target confirmed
	// (deadline with force). Done when the target confirms.
	Forced MovePhase = "FORCED"
)

// MoveReason says why an instance moves.
type MoveReason string

const (
	ForDrain     MoveReason = "drain"
	ForRebalance MoveReason = "rebalance"
)

// Move is an instance in transit from the assignment's Worker to Target.
type Move struct {
	Target  string     `json:"target"`
	Gen     uint64     `json:"gen"`
	Phase   MovePhase  `json:"phase"`
	Reason  MoveReason `json:"reason"`
	Since   time.Time  `json:"since"`
	Expires time.Time  `json:"expires"`
	// Tried lists targets that failed to confirm in time.
	Tried []string `json:"tried,omitempty"`
}

// Assignment is the persisted, published record of one instance: which
// worker owns it, at which function version and generation, and the move in
// progress if any. A generation is issued for every new intent to run the
// instance somewhere; workers echo it in their acks.
type Assignment struct {
	Instance InstanceID `json:"instance"`
	Worker   string     `json:"workerId"`
	Version  uint64     `json:"version"`
	Gen      uint64     `json:"gen"`
	// Rev is the revision at which this record was last written; revisions
	// grow with every assignment write, so a worker that applied records up
	// to revision R has seen this one if Rev <= R.
	Rev  uint64 `json:"rev"`
	Move *Move  `json:"move,omitempty"`
	// Stopped: a user stopped this instance; no worker should run it.
	Stopped bool `json:"stopped,omitempty"`
}

// Clone copies the assignment deeply.
func (a Assignment) Clone() Assignment {
	if a.Move != nil {
		m := *a.Move
		m.Tried = append([]string(nil), m.Tried...)
		a.Move = &m
	}
	return a
}

// DesiredOn tells worker w whether it should run the instance, and under
// which generation.
func (a Assignment) DesiredOn(w string) (gen uint64, ok bool) {
	if a.Stopped {
		return 0, false
	}
	if m := a.Move; m != nil {
		if m.Target == w {
			return m.Gen, true
		}
		if m.Phase != Starting {
			return 0, false
		}
	}
	if a.Worker == w {
		return a.Gen, true
	}
	return 0, false
}
