package runtime

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInterpreters runs the PYTHON and JAVA test programs when their tools
// are installed: the package is run by the interpreter, with the contract's
// environment, and stops on SIGTERM.
func TestInterpreters(t *testing.T) {
	tests := []struct {
		runtime string
		needs   []string
		pkg     func(t *testing.T) string
		details string
	}{
		{"PYTHON", []string{"python3"}, func(*testing.T) string { return "testdata/py/fn.py" }, ""},
		{"JAVA", []string{"java", "javac"}, func(t *testing.T) string {
			classes := t.TempDir() // a class directory is a valid -cp
			out, err := exec.Command("javac", "-d", classes, "testdata/java/Fn.java").CombinedOutput()
			if err != nil {
				t.Fatalf("javac: %v\n%s", err, out)
			}
			return classes
		}, `{"className":"Fn"}`},
	}
	for _, tt := range tests {
		t.Run(tt.runtime, func(t *testing.T) {
			for _, tool := range tt.needs {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s not installed", tool)
				}
			}
			h := newHarness(t, false, nil)
			in := fn("interp", 0, 1, 1, "")
			in.Spec.Runtime, in.Spec.Details = tt.runtime, []byte(tt.details)
			pkg, err := filepath.Abs(tt.pkg(t))
			if err != nil {
				t.Fatal(err)
			}
			in.PackagePath = pkg
			h.rt.Reconcile([]Instance{in})
			h.events.wait(t, Started, in.ID, 1)
			ready := h.notes.wait(t, "ready", in.ID)
			if log := readLog(t, h, in.ID); !hasLine(log, "FWORKER_INSTANCE=t/ns/interp:0") {
				t.Errorf("log:\n%s", log)
			}
			h.rt.Reconcile(nil)
			h.events.wait(t, Stopped, in.ID, 1)
			waitGone(t, ready.pid)
		})
	}
}
