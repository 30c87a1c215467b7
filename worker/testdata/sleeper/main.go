// Command sleeper is the smallest function instance: it prints its identity
// and runs until SIGTERM. The worker tests upload it as a GO function.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	fmt.Println("started", os.Getenv("FWORKER_INSTANCE"), "on", os.Getenv("FWORKER_WORKER_ID"))
	<-sigs
	fmt.Println("stopping", os.Getenv("FWORKER_INSTANCE"))
}
