package runtime

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// process is one running OS process of an instance. Its watch goroutine
// sends the exit (the error of exec.Cmd.Wait) on exited, exactly once.
type process struct {
	pid    int
	exited chan error
}

// startProcess prepares the work dir, details file and log file, and execs
// the instance in its own process group.
func startProcess(o *Options, in Instance) (*process, error) {
	path, args, err := command(o, in)
	if err != nil {
		return nil, err
	}
	work, logPath, err := instancePaths(o.Dir, in.ID)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{work, filepath.Dir(logPath)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// Counters start again with every run.
	if err := os.Remove(filepath.Join(work, StatsFileName)); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	details := filepath.Join(work, DetailsFileName)
	if err := writeDetails(details, o.WorkerID, in); err != nil {
		return nil, fmt.Errorf("write details file: %w", err)
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	argv := append([]string{path}, args...)
	fmt.Fprintf(logf, "[fworker %s] starting %s gen=%d version=%d: %s\n",
		stamp(o.Clock), in.ID, in.Gen, in.Version, strings.Join(argv, " "))
	cmd := &exec.Cmd{
		Path:   path,
		Args:   argv,
		Dir:    work,
		Env:    environment(os.Environ(), o, in, details),
		Stdout: logf, // an *os.File is handed to the child as is: no copying goroutine
		Stderr: logf,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,            // own group: stop signals reach its children
			Pdeathsig: syscall.SIGKILL, // the worker's death takes the instance with it
		},
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(logf, "[fworker %s] start failed: %v\n", stamp(o.Clock), err)
		logf.Close()
		return nil, fmt.Errorf("exec %s package: %w", runtimeName(in), err)
	}
	p := &process{pid: cmd.Process.Pid, exited: make(chan error, 1)}
	go p.watch(cmd, logf, o.Clock)
	return p, nil
}

// watch waits for the main process to exit, kills what is left of its
// process group while the group id cannot yet be reused (the main process is
// not reaped yet), then reaps it.
func (p *process) watch(cmd *exec.Cmd, logf *os.File, clock Clock) {
	_ = waitExited(p.pid) // on error, Wait below still waits
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	err := cmd.Wait()
	fmt.Fprintf(logf, "[fworker %s] pid %d ended: %s\n", stamp(clock), p.pid, exitString(err))
	logf.Close()
	p.exited <- err
}

// signal sends sig to the process group. Errors (the group is gone) are
// ignored: the exit is reported by watch.
func (p *process) signal(sig syscall.Signal) { _ = syscall.Kill(-p.pid, sig) }

// waitExited blocks until pid has exited without reaping it
// (waitid(P_PID, pid, WEXITED|WNOWAIT)), as os.Process does internally.
func waitExited(pid int) error {
	const pPID = 1
	var siginfo [16]uint64 // siginfo_t is 128 bytes
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&siginfo[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

func stamp(c Clock) string { return c.Now().UTC().Format(time.RFC3339Nano) }

func runtimeName(in Instance) string {
	if in.Spec.Runtime == "" {
		return "GO"
	}
	return in.Spec.Runtime
}
