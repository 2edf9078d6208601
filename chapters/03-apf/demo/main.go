//go:build js && wasm

// Command demo is chapter 3's interactive demo on the course site: the
// chapter's model of API Priority and Fairness, compiled to WebAssembly.
//
// Seats: the reader sets the shares and the lendable percent of the
// default priority levels (apf.DefaultLevels, the levels a new API server
// creates, tested against k8s.io/apiserver's bootstrap objects by package
// kube), and apf.Seats divides the server's 600 seats among them, as
// kube's Config.Seats does for the objects of a cluster.
//
// A runaway: apf.Simulate runs the chapter's level of 10 seats, 64
// queues, hand size 8 and queue length limit 50 with five mice, each
// sending a request every 200 ticks, and, when the reader switches it on,
// a runaway operator sending one every tick, ten times the level's
// capacity. Each request holds its seat for 100 ticks. It is the scenario
// of TestRunawayContained, over 20,000 ticks.
//
// It imports only the model, package apf, and the standard library, so that it stays small:
// the API types of k8s.io/api would add about 11 MB of WebAssembly.
// It registers its functions as window.opslabDemoAPI; demo.js draws them.
package main

import (
	"errors"
	"strconv"
	"syscall/js"

	apf "github.com/opslab/opslab/chapters/03-apf"
)

const horizon = 20_000

// seats returns the levels' seats after the reader's changes: a JS object
// mapping a level's name to {shares, lendable}.
func seats(changes js.Value) (any, error) {
	levels := apf.DefaultLevels()
	for i := range levels {
		l := &levels[i]
		ch := changes.Get(l.Name)
		if ch.IsUndefined() || l.Exempt {
			continue
		}
		shares, lendable := int32(ch.Get("shares").Int()), int32(ch.Get("lendable").Int())
		if shares < 1 {
			return nil, errors.New("shares " + strconv.Itoa(int(shares)) + " for " + l.Name + ": a Limited level needs at least 1")
		}
		if lendable < 0 || lendable > 100 {
			return nil, errors.New("lendablePercent " + strconv.Itoa(int(lendable)) + " for " + l.Name + " is outside 0 to 100")
		}
		l.Shares, l.LendablePercent = shares, lendable
	}
	lendablePercent := map[string]int32{}
	for _, l := range levels {
		lendablePercent[l.Name] = l.LendablePercent
	}
	var out []any
	for _, s := range apf.Seats(apf.DefaultServerSeats, levels) {
		typ := "Limited"
		if s.Exempt {
			typ = "Exempt"
		}
		out = append(out, map[string]any{
			"name": s.Level, "type": typ, "shares": int(s.Shares), "lendablePercent": int(lendablePercent[s.Level]),
			"nominal": s.Nominal, "lendable": s.Lendable, "borrowing": s.Borrowing, "min": s.Min, "max": s.Max,
		})
	}
	return map[string]any{"server": apf.DefaultServerSeats, "levels": out}, nil
}

// simulate runs the runaway scenario, with or without the runaway.
func simulate(runaway bool) (any, error) {
	level := apf.SimLevel{Schema: "service-accounts", Seats: 10, Queuing: &apf.Queuing{Queues: 64, HandSize: 8, QueueLengthLimit: 50}}
	var flows []apf.Flow
	if runaway {
		flows = append(flows, apf.Flow{Name: "system:serviceaccount:apf-lab:runaway-operator", Every: 1, Count: horizon, Work: 100})
	}
	for i := range 5 {
		flows = append(flows, apf.Flow{Name: "system:serviceaccount:apf-lab:mouse-" + strconv.Itoa(i), Start: int64(i * 37), Every: 200, Count: horizon / 200, Work: 100})
	}
	res, err := apf.Simulate(level, flows)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, f := range res.Flows {
		out = append(out, map[string]any{
			"name": f.Name, "sent": f.Sent, "served": f.Served, "rejected": f.Rejected,
			"meanWait": f.MeanWait(), "maxWait": int(f.MaxWait), "maxQueued": f.MaxQueued,
		})
	}
	return map[string]any{"runaway": runaway, "flows": out, "end": int(res.End), "seats": level.Seats}, nil
}

func call(f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) (result any) {
		defer func() {
			if r := recover(); r != nil {
				result = map[string]any{"error": "the model panicked"}
			}
		}()
		v, err := f(args)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		return v
	})
}

func main() {
	api := map[string]any{
		"seats":    call(func(a []js.Value) (any, error) { return seats(a[0]) }),
		"simulate": call(func(a []js.Value) (any, error) { return simulate(a[0].Bool()) }),
	}
	js.Global().Set("opslabDemoAPI", js.ValueOf(api))
	select {}
}
