// Command sleeper is the smallest function instance: it prints its identity
// and runs until SIGTERM. The tests upload it as a GO function. A function
// whose name contains "slowstop" takes 2 s to stop, so that moves off its
// workers take a while (a drain is then reliably in progress).
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	fmt.Println("started", os.Getenv("FWORKER_INSTANCE"), "on", os.Getenv("FWORKER_WORKER_ID"))
	<-sigs
	if strings.Contains(os.Getenv("FWORKER_NAME"), "slowstop") {
		time.Sleep(2 * time.Second)
	}
	fmt.Println("stopping", os.Getenv("FWORKER_INSTANCE"))
}
