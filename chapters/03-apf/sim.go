package apf

import (
	"container/heap"
	"fmt"
)

// A Flow is a stream of requests of one flow of the simulated level. Times
// are ticks of a logical clock.
type Flow struct {
	// Name is the flow's distinguisher: its hand is dealt from
	// FlowHash(level's schema, Name).
	Name  string
	Start int64 // when the first request arrives
	Every int64 // ticks between arrivals; 0 sends all Count at Start
	Count int   // how many requests the flow sends
	Work  int64 // how long each request holds its seats once dispatched
	// Seats is how many seats each request takes (the work estimate's
	// initial seats, such as a LIST's); 0 means 1.
	Seats int
}

// A SimLevel is the one Limited priority level a simulation runs.
type SimLevel struct {
	Schema string // the schema whose name, with a flow's Name, gives the flow's hash
	Seats  int    // the level's concurrency limit
	// Queuing is the level's queues; nil makes the level's limitResponse
	// Reject.
	Queuing *Queuing
}

// A FlowResult is what happened to one flow's requests.
type FlowResult struct {
	Name     string
	Hand     []int // the queues the flow may use; nil under Reject
	Sent     int
	Served   int
	Rejected int
	// MaxWait and TotalWait are the longest and the summed time the
	// served requests spent queued before they got a seat.
	MaxWait   int64
	TotalWait int64
	// MaxQueued is the most requests of the flow waiting at one moment.
	MaxQueued int
}

// MeanWait is the average time a served request waited.
func (f FlowResult) MeanWait() float64 {
	if f.Served == 0 {
		return 0
	}
	return float64(f.TotalWait) / float64(f.Served)
}

// A SimResult is the outcome of a simulation, one entry per flow in the
// order the flows were given.
type SimResult struct {
	Flows []FlowResult
	End   int64 // when the last request finished
	// Placed counts the requests that went through ChooseQueue under
	// Queue, which is how far the offset of the queue choice moved: every
	// request, the ones then refused as queue-full included.
	Placed uint64
}

type simRequest struct {
	flow    int
	arrived int64
	work    int64
	seats   int
}

type event struct {
	at    int64
	done  bool // a request finishing, else an arrival
	flow  int
	seats int // the seats a finishing request gives back
	seq   int
}

type events []event

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	// A seat freed at t is free for a request arriving at t.
	if e[i].done != e[j].done {
		return e[i].done
	}
	return e[i].seq < e[j].seq
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

type queue struct {
	reqs []simRequest
	head int
	work int64 // the summed work of the waiting requests
}

func (q *queue) len() int { return len(q.reqs) - q.head }

// Simulate runs flows through level and returns what each flow saw. Under
// Reject (a level without queuing) a request that finds every seat taken
// is rejected at once (429, reason concurrency-limit). Under Queue it
// joins the queue ChooseQueue picks from its flow's hand, unless every seat is taken and that queue
// already holds queueLengthLimit requests (429, reason queue-full).
// Whenever seats are free, the next non-empty queue in round-robin order
// sends its oldest request if the seats it needs are free (or if nothing
// runs, as upstream lets a request wider than the level run alone);
// otherwise dispatch waits for more seats.
//
// The queue-full test counts seats in use, not requests, as
// rejectOrEnqueueToBoundLocked does: while a wide request at the head of a
// queue waits for seats, fewer than all seats are in use and arrivals are
// queued past queueLengthLimit.
func Simulate(level SimLevel, flows []Flow) (SimResult, error) {
	return play(level, flows, 0, nil)
}

// A Sample is the state of a simulated level at the end of one tick: for
// each flow, in the order the flows were given, its requests waiting in a
// queue and its requests rejected so far.
type Sample struct {
	At       int64
	InUse    int // seats taken
	Queued   []int
	Rejected []int
}

// Trace runs Simulate and also returns the level's state every `every`
// ticks, from tick 0 to the end: what a figure of the run plots.
func Trace(level SimLevel, flows []Flow, every int64) (SimResult, []Sample, error) {
	if every < 1 {
		return SimResult{}, nil, fmt.Errorf("sampling every %d ticks: want at least 1", every)
	}
	var samples []Sample
	res, err := play(level, flows, every, func(s Sample) { samples = append(samples, s) })
	return res, samples, err
}

// play is Simulate, showing sample the state at every multiple of
// every once the clock has passed it.
func play(level SimLevel, flows []Flow, every int64, sample func(Sample)) (SimResult, error) {
	if level.Seats < 1 {
		return SimResult{}, fmt.Errorf("level has %d seats, needs at least 1", level.Seats)
	}
	q := level.Queuing
	res := SimResult{Flows: make([]FlowResult, len(flows))}
	var queues []queue
	if q != nil {
		d, err := NewDealer(int(q.Queues), int(q.HandSize))
		if err != nil {
			return SimResult{}, err
		}
		if q.QueueLengthLimit < 1 {
			return SimResult{}, fmt.Errorf("queueLengthLimit %d is not positive", q.QueueLengthLimit)
		}
		queues = make([]queue, q.Queues)
		for i, f := range flows {
			res.Flows[i].Hand = d.Deal(FlowHash(level.Schema, f.Name))
		}
	}
	var ev events
	seq := 0
	push := func(e event) { e.seq = seq; seq++; heap.Push(&ev, e) }
	for i, f := range flows {
		res.Flows[i].Name = f.Name
		if f.Count > 0 {
			push(event{at: f.Start, flow: i})
		}
	}
	var (
		inUse   int
		waiting int
		placed  uint64
		robin   = -1
		queued  = make([]int, len(flows))
		sent    = make([]int, len(flows))
	)
	start := func(now int64, r simRequest) {
		fr := &res.Flows[r.flow]
		wait := now - r.arrived
		fr.Served++
		fr.TotalWait += wait
		fr.MaxWait = max(fr.MaxWait, wait)
		inUse += r.seats
		push(event{at: now + r.work, done: true, flow: r.flow, seats: r.seats})
	}
	fits := func(seats int) bool { return inUse == 0 || inUse+seats <= level.Seats }
	next := -1 // the queue whose head waits for seats, or -1
	dispatch := func(now int64) {
		for inUse < level.Seats && waiting > 0 {
			if next < 0 {
				for {
					robin = (robin + 1) % len(queues)
					if queues[robin].len() > 0 {
						break
					}
				}
				next = robin
			}
			qu := &queues[next]
			r := qu.reqs[qu.head]
			if !fits(r.seats) {
				return
			}
			next = -1
			qu.head++
			if qu.head == len(qu.reqs) {
				qu.reqs, qu.head = qu.reqs[:0], 0
			}
			qu.work -= r.work
			waiting--
			queued[r.flow]--
			start(now, r)
		}
	}
	waitingWork := func(i int) float64 { return float64(queues[i].work) }
	var nextSample int64
	rejected := make([]int, len(flows))
	show := func(before int64) {
		for ; sample != nil && nextSample < before; nextSample += every {
			for i := range res.Flows {
				rejected[i] = res.Flows[i].Rejected
			}
			sample(Sample{At: nextSample, InUse: inUse, Queued: append([]int(nil), queued...), Rejected: append([]int(nil), rejected...)})
		}
	}
	for ev.Len() > 0 {
		e := heap.Pop(&ev).(event)
		show(e.at)
		if e.done {
			inUse -= e.seats
			res.End = max(res.End, e.at)
			if q != nil {
				dispatch(e.at)
			}
			continue
		}
		f, fr := flows[e.flow], &res.Flows[e.flow]
		sent[e.flow]++
		fr.Sent++
		if sent[e.flow] < f.Count {
			push(event{at: e.at + f.Every, flow: e.flow})
		}
		r := simRequest{flow: e.flow, arrived: e.at, work: f.Work, seats: max(f.Seats, 1)}
		if q == nil {
			if fits(r.seats) {
				start(e.at, r)
			} else {
				fr.Rejected++
			}
			continue
		}
		// Upstream moves the offset for every request it places, before it
		// knows whether the queue has room (shuffleShardLocked, then
		// rejectOrEnqueueToBoundLocked).
		qi := ChooseQueue(fr.Hand, placed, waitingWork)
		placed++
		res.Placed = placed
		qu := &queues[qi]
		if inUse >= level.Seats && qu.len() >= int(q.QueueLengthLimit) {
			fr.Rejected++
			continue
		}
		qu.reqs = append(qu.reqs, r)
		qu.work += r.work
		waiting++
		queued[e.flow]++
		fr.MaxQueued = max(fr.MaxQueued, queued[e.flow])
		dispatch(e.at)
	}
	show(res.End + 1)
	return res, nil
}
