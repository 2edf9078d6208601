// Watch-exempt prints the FlowSchemas that point at the exempt priority
// level, then a line each time one starts ("+ NAME") or stops ("- NAME").
// It is the reference solution of chapter 3's lab step on exempt schemas.
//
// Usage:
//
//	watch-exempt [--kubeconfig FILE] [--context NAME]
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/opslab/opslab/chapters/03-apf/lab/watchexempt"
	"github.com/opslab/opslab/internal/kubeio"
)

func main() {
	log.SetPrefix("watch-exempt: ")
	log.SetFlags(0)
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig `file`")
	kubeContext := flag.String("context", "", "the kubeconfig `context`")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	cl, err := kubeio.Connect(*kubeconfig, *kubeContext)
	if err != nil {
		log.Fatal(err)
	}
	// The watch lasts as long as the learner lets it run: no timeout for
	// its requests.
	cfg := rest.CopyConfig(cl.Config)
	cfg.Timeout = 0
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := watchexempt.Watch(ctx, client, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
