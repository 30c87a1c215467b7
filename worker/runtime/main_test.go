package runtime

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fnPath is the test instance program (testdata/fn), built once per run.
var fnPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fworker-runtime-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		fnPath = filepath.Join(dir, "fn")
		build := exec.Command("go", "build", "-o", fnPath, "./testdata/fn")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building testdata/fn: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}
