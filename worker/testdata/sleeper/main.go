// Command sleeper is the smallest function instance: it prints its identity,
// writes a stats file (received 7, processed 6, one user exception, so the
// tests can see counters travel), and runs until SIGTERM. The tests upload it
// as a GO function. A function whose name contains "slowstop" takes 2 s to
// stop, so that moves off its workers take a while (a drain is then
// reliably in progress).
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/fworker/fworker/sdk/stats"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	fmt.Println("started", os.Getenv("FWORKER_INSTANCE"), "on", os.Getenv("FWORKER_WORKER_ID"))
	if path := os.Getenv("FWORKER_STATS_FILE"); path != "" {
		now := time.Now().UnixMilli()
		err := stats.Write(path, stats.File{
			Window:               stats.Window{ReceivedTotal: 7, ProcessedSuccessfullyTotal: 6, UserExceptionsTotal: 1, AvgProcessLatency: 2.5},
			LastInvocation:       now,
			LatestUserExceptions: []stats.Exception{{ExceptionString: "sleeper: one bad input", TimestampMs: now}},
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "stats:", err)
		}
	}
	<-sigs
	if strings.Contains(os.Getenv("FWORKER_NAME"), "slowstop") {
		time.Sleep(2 * time.Second)
	}
	fmt.Println("stopping", os.Getenv("FWORKER_INSTANCE"))
}
