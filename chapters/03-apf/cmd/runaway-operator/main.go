// Runaway-operator runs chapter 3's runaway operator as its own service
// account, apf-lab/runaway-operator (under the account's token when your
// credentials may ask for one, else acting as it, as kubectl --as does), and
// prints where the API server classifies each of its requests. See package
// runaway.
//
// Usage:
//
//	runaway-operator [--kubeconfig FILE] [--context NAME] [--passes N] [--every DURATION]
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/opslab/opslab/chapters/03-apf/lab/runaway"
	"github.com/opslab/opslab/internal/kubeio"
)

func main() {
	log.SetPrefix("runaway-operator: ")
	log.SetFlags(0)
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig `file`")
	kubeContext := flag.String("context", "", "the kubeconfig `context`")
	passes := flag.Int("passes", 3, "passes of the loop, 0 for no end")
	every := flag.Duration("every", 2*time.Second, "the pause between two passes")
	flag.Parse()
	if flag.NArg() > 0 || *passes < 0 || *every < 0 {
		flag.Usage()
		os.Exit(2)
	}
	cl, err := kubeio.Connect(*kubeconfig, *kubeContext)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := runaway.Run(ctx, cl.Config, runaway.Options{Passes: *passes, Every: *every}, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
