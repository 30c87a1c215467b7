// Command fn is the function instance the runtime tests run. It prints its
// FWORKER_* and FN_* environment, its working directory and the "mode" from
// the function details file to stdout (and a line to stderr), then behaves
// according to the mode:
//
//	""             run until SIGTERM, then exit 0
//	"ignore-term"  keep running after SIGTERM (only SIGKILL ends it)
//	"exit:N"       exit at once with status N
//	"child"        like "", after starting a child process (itself with
//	               FN_CHILD=1) that ignores SIGTERM and runs until killed
//
// If FN_NOTIFY names a FIFO, fn writes "<what> <FWORKER_INSTANCE> <gen> <pid>"
// lines to it: "ready" once running, "child" from the child once it ignores
// SIGTERM, and "ignored" when it ignores a SIGTERM, so tests can wait on them.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if os.Getenv("FN_CHILD") == "1" {
		// Only SIGKILL, sent to the whole group, ends the child.
		signal.Ignore(syscall.SIGTERM)
		notify("child", os.Getpid())
		for {
			time.Sleep(time.Hour)
		}
	}
	// Signals first, so a SIGTERM during start-up is handled the same way.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)

	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "FWORKER_") || strings.HasPrefix(kv, "FN_") || strings.HasPrefix(kv, "PULSAR_") {
			fmt.Println(kv)
		}
	}
	cwd, _ := os.Getwd()
	fmt.Println("cwd=" + cwd)
	mode := readMode()
	fmt.Println("mode=" + mode)
	fmt.Fprintln(os.Stderr, "hello from stderr")

	if code, ok := strings.CutPrefix(mode, "exit:"); ok {
		n, _ := strconv.Atoi(code)
		os.Exit(n)
	}
	if mode == "child" {
		self, _ := os.Executable()
		c := exec.Command(self)
		c.Env = append(os.Environ(), "FN_CHILD=1")
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
	}
	notify("ready", os.Getpid())
	for range sigs {
		if mode == "ignore-term" {
			fmt.Println("ignoring SIGTERM")
			notify("ignored", os.Getpid())
			continue
		}
		fmt.Println("SIGTERM: exiting")
		os.Exit(0)
	}
}

func readMode() string {
	b, err := os.ReadFile(os.Getenv("FWORKER_FUNCTION_DETAILS_FILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "details:", err)
		os.Exit(2)
	}
	var doc struct {
		Details struct {
			Mode string `json:"mode"`
		} `json:"details"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		fmt.Fprintln(os.Stderr, "details:", err)
		os.Exit(2)
	}
	return doc.Details.Mode
}

func notify(what string, pid int) {
	path := os.Getenv("FN_NOTIFY")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "notify:", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s %s %d\n", what, os.Getenv("FWORKER_INSTANCE"), os.Getenv("FWORKER_GEN"), pid)
}
