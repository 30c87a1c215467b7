package runtime

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// supervisor runs one generation of one instance. Its run goroutine owns the
// process; requestStop and requestKill may be called from anywhere.
type supervisor struct {
	rt   *Runtime
	inst Instance
	log  *slog.Logger
	prev <-chan struct{} // done of the generation this one replaces, or nil

	stop, kill         chan struct{} // closed once each
	stopOnce, killOnce sync.Once
	done               chan struct{} // closed when run returns

	mu sync.Mutex
	st InstanceStatus
}

func newSupervisor(r *Runtime, in Instance, prev <-chan struct{}) *supervisor {
	state := StateStarting
	if prev != nil {
		state = StateWaiting // from birth, not from when run gets scheduled
	}
	return &supervisor{
		rt:   r,
		inst: in,
		log:  r.opts.Log.With("instance", in.ID.String(), "gen", in.Gen, "version", in.Version),
		prev: prev,
		stop: make(chan struct{}),
		kill: make(chan struct{}),
		done: make(chan struct{}),
		st:   InstanceStatus{ID: in.ID, Gen: in.Gen, Version: in.Version, State: state},
	}
}

// requestStop asks for a graceful stop: SIGTERM, SIGKILL after StopGrace.
func (s *supervisor) requestStop() { s.stopOnce.Do(func() { close(s.stop) }) }

// requestKill cuts the grace short: SIGKILL now. Only after requestStop.
func (s *supervisor) requestKill() { s.killOnce.Do(func() { close(s.kill) }) }

func (s *supervisor) status() InstanceStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

func (s *supervisor) update(f func(*InstanceStatus)) {
	s.mu.Lock()
	f(&s.st)
	s.mu.Unlock()
}

func (s *supervisor) emit(kind EventKind, err string) {
	s.rt.opts.Events(Event{Kind: kind, ID: s.inst.ID, Gen: s.inst.Gen, Err: err})
}

func (s *supervisor) stopRequested() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// run is the instance's goroutine: start, watch, restart with backoff,
// until stopped; then send Stopped and leave.
func (s *supervisor) run() {
	defer close(s.done)
	defer s.rt.forget(s)
	defer s.emit(Stopped, "")
	defer s.update(func(st *InstanceStatus) { st.State = StateDone })

	if s.prev != nil {
		// The generation this one replaces was asked to stop when this one
		// was made. Wait for it even if this one is stopped meanwhile, so
		// that a chain of replacements finishes in order.
		<-s.prev
		s.update(func(st *InstanceStatus) { st.State = StateStarting })
	}
	o := &s.rt.opts
	backoff := o.BackoffMin
	for attempt := 0; !s.stopRequested(); attempt++ {
		if attempt > 0 {
			s.update(func(st *InstanceStatus) { st.NumRestarts++ })
		}
		uptime, err := s.runOnce()
		if err == nil {
			return // stopped on request
		}
		if uptime >= o.BackoffReset {
			backoff = o.BackoffMin // it had been stable: not a crash loop
		}
		msg := err.Error()
		s.log.Warn("runtime: instance failed", "err", msg, "retry_in", backoff)
		s.update(func(st *InstanceStatus) { st.State, st.LastError = StateBackoff, msg })
		s.emit(Failed, msg)

		t := o.Clock.NewTimer(backoff)
		select {
		case <-t.C():
		case <-s.stop:
			t.Stop()
			return
		}
		backoff = min(2*backoff, o.BackoffMax)
	}
}

// runOnce starts the process and waits until it exits or is stopped. It
// returns nil when the process was stopped on request, or the failure: a
// start error or an unexpected exit, with how long the process ran.
func (s *supervisor) runOnce() (uptime time.Duration, err error) {
	o := &s.rt.opts
	s.update(func(st *InstanceStatus) { st.State = StateStarting })
	p, err := startProcess(o, s.inst)
	if err != nil {
		return 0, fmt.Errorf("start: %w", err)
	}
	startedAt := o.Clock.Now()
	s.update(func(st *InstanceStatus) {
		st.State, st.Running, st.PID, st.StartedAt = StateRunning, true, p.pid, startedAt
	})
	s.log.Info("runtime: instance started", "pid", p.pid)
	s.emit(Started, "")

	exitErr, stopped := s.watch(p)
	uptime = o.Clock.Now().Sub(startedAt)
	s.update(func(st *InstanceStatus) { st.Running = false })
	if stopped {
		s.log.Info("runtime: instance stopped", "pid", p.pid, "exit", exitString(exitErr))
		return uptime, nil
	}
	return uptime, fmt.Errorf("exited unexpectedly after %s: %s", uptime.Round(time.Millisecond), exitString(exitErr))
}

// watch waits for the process to exit (stopped false) or for a stop request,
// which it carries out: SIGTERM to the group, SIGKILL after StopGrace or on
// requestKill (stopped true).
func (s *supervisor) watch(p *process) (exitErr error, stopped bool) {
	select {
	case err := <-p.exited:
		return err, false
	case <-s.stop:
	}
	o := &s.rt.opts
	s.update(func(st *InstanceStatus) { st.State = StateStopping })
	p.signal(syscall.SIGTERM)
	t := o.Clock.NewTimer(o.StopGrace)
	defer t.Stop()
	select {
	case err := <-p.exited:
		return err, true
	case <-t.C():
		s.log.Warn("runtime: instance ignored SIGTERM; killing its process group", "pid", p.pid, "grace", o.StopGrace)
	case <-s.kill:
		s.log.Warn("runtime: killing instance's process group before its grace ended", "pid", p.pid)
	}
	p.signal(syscall.SIGKILL)
	return <-p.exited, true
}

// exitString renders how a process ended: "exit status 3",
// "signal: killed", or "exit status 0" for a clean exit.
func exitString(err error) string {
	if err == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.String()
	}
	return err.Error()
}
