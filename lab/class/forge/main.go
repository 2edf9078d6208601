// Command forge sends one request to a lab cluster with the credentials of
// a kubeconfig and a user agent of its caller's choosing, and prints the
// answer's HTTP status code. It is the class test's student who claims to
// be a part of the control plane (lab/scripts/class-test.sh): the agent is
// a string any client sets, so the checks must judge the request by the
// credentials that sent it.
//
//	forge -kubeconfig FILE -agent AGENT -X METHOD PATH [BODY]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig whose current context sends the request")
	agent := flag.String("agent", "", "the User-Agent header to send")
	method := flag.String("X", "GET", "the HTTP method")
	flag.Parse()
	if *kubeconfig == "" || flag.NArg() < 1 || flag.NArg() > 2 {
		fmt.Fprintln(os.Stderr, "usage: forge -kubeconfig FILE -agent AGENT -X METHOD PATH [BODY]")
		os.Exit(2)
	}
	code, err := send(*kubeconfig, *agent, *method, flag.Arg(0), flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "forge:", err)
		os.Exit(1)
	}
	fmt.Println(code)
}

func send(kubeconfig, agent, method, path, body string) (int, error) {
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return 0, err
	}
	client, err := rest.HTTPClientFor(rc)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(rc.Host, "/")+path, bytes.NewBufferString(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("User-Agent", agent)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}
