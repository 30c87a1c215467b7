package drain

// View is what admission needs to know about the cluster, in terms of worker
// ids. The scheduler core builds it from its own state.
type View struct {
	// Running is the number of drains in RUNNING state.
	Running int
	// MaxConcurrent is the limit on running drains (at least 1).
	MaxConcurrent int
	// Available are the live members that hold no drain record and are not
	// cordoned; a cordoned target is counted as available, so that the
	// Nomad-style "cordon first, then drain" works.
	Available map[string]bool
	// HasRecord reports whether a worker has a drain record.
	HasRecord func(worker string) bool
}

// Admit applies Pulsar's checks in Pulsar's order: concurrency (409), too
// few workers (400), prior drain (412), unknown worker (400). The capacity
// dry run comes after and is the caller's, because it needs placement.
func Admit(v View, target string) error {
	limit := v.MaxConcurrent
	if limit < 1 {
		limit = 1
	}
	if v.Running >= limit {
		return ErrDrainInProgress
	}
	if len(v.Available) <= 1 {
		return ErrTooFewWorkers
	}
	if v.HasRecord(target) {
		return &PriorDrainError{Worker: target}
	}
	if !v.Available[target] {
		return &UnknownWorkerError{Worker: target}
	}
	return nil
}
