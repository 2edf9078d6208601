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

	"github.com/opslab/opslab/chapters/03-apf/kube"
	"github.com/opslab/opslab/chapters/03-apf/lab/watchexempt"
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
	cfg, err := kube.RESTConfig(*kubeconfig, *kubeContext)
	if err != nil {
		log.Fatal(err)
	}
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
