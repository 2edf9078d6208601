package proof

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Options say which plants Check judges and how.
type Options struct {
	Chapters []string // the chapters' directories
	All      bool     // run every plant, recorded or not
	Write    bool     // write each chapter's verdict file from this check
	Cluster  bool     // run plants that need a cluster (tags: e2e); without, they keep their recorded verdicts
	Jobs     int      // plants run at once; 1 when zero
	Runner   *Runner
	Keyer    *Keyer
	// Started, if set, is called as each plant starts to run.
	Started func(*Plant)
}

// An Outcome is what Check decided of one plant.
type Outcome struct {
	Plant    *Plant
	Key      string
	Recorded *Entry  // the verdict file's line for the plant, or nil
	Result   *Result // the run, or nil when the recorded verdict stood
	Verdict  Verdict // the run's verdict, or the recorded one
	Problem  string  // why the plant fails the check, or ""
	Note     string  // what the reader should know though it passes
}

// Failed reports whether the outcome fails the check.
func (o *Outcome) Failed() bool { return o.Problem != "" }

// Check judges the plants of the chapters: each plant whose key matches
// its line in the verdict file keeps the recorded verdict, unless
// opts.All; the others run. A plant fails the check when its verdict, run
// or recorded, is not Killed, or when it does not parse. The error is for a
// check that could not judge at all.
func Check(ctx context.Context, opts Options) ([]*Outcome, error) {
	var out []*Outcome
	var todo []*Outcome
	sums := map[string]Sum{}
	for _, ch := range opts.Chapters {
		plants, err := Load(ch)
		if err != nil {
			return nil, err
		}
		sum, err := ReadSum(filepath.Join(ch, "plants", SumFile))
		if err != nil {
			return nil, err
		}
		sums[ch] = sum
		if len(plants) == 0 {
			continue
		}
		keys, err := opts.Keyer.Keys(ctx, plants)
		if err != nil {
			return nil, err
		}
		for i, p := range plants {
			o := &Outcome{Plant: p, Key: keys[i]}
			if e, ok := sum[p.Name]; ok {
				o.Recorded = &e
			}
			out = append(out, o)
			recorded := o.Recorded != nil && o.Recorded.Key == o.Key
			switch {
			case recorded && !opts.All:
				o.Verdict = o.Recorded.Verdict
			case p.NeedsCluster() && !opts.Cluster:
				o.Note = "needs a cluster (tags: e2e): not run"
				if recorded {
					o.Verdict = o.Recorded.Verdict
				}
			default:
				todo = append(todo, o)
			}
		}
	}
	todo, err := unplanted(ctx, opts, todo)
	if err != nil {
		return nil, err
	}
	if err := run(ctx, opts, todo); err != nil {
		return nil, err
	}
	for _, o := range out {
		judge(o)
	}
	if opts.Write {
		for _, ch := range opts.Chapters {
			if err := writeSum(ch, sums[ch], out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// unplanted runs the tests of the plants that need a cluster once without
// a plant, one run for each package and tags, and returns the outcomes left
// to run. A plant whose tests do not pass there is not run: a test against
// a cluster fails when none answers too, and a kill would prove nothing. It
// gets an unjudged Broken result, which names the tests, and keeps its
// recorded verdict in the verdict file.
func unplanted(ctx context.Context, opts Options, todo []*Outcome) ([]*Outcome, error) {
	groups := map[string][]*Outcome{}
	var order []string
	for _, o := range todo {
		if !o.Plant.NeedsCluster() {
			continue
		}
		k := o.Plant.PkgDir() + "\x00" + strings.Join(o.Plant.Tags, ",")
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], o)
	}
	skip := map[*Outcome]bool{}
	for _, k := range order {
		group := groups[k]
		all := *group[0].Plant
		all.Tests = nil
		for _, o := range group {
			for _, t := range o.Plant.Tests {
				if !slices.Contains(all.Tests, t) {
					all.Tests = append(all.Tests, t)
				}
			}
		}
		failed, output, err := opts.Runner.Unplanted(ctx, &all)
		if err != nil {
			return nil, fmt.Errorf("plant %s, without it: %w", group[0].Plant.Path(), err)
		}
		for _, o := range group {
			var bad []string
			for _, t := range o.Plant.Tests {
				if slices.Contains(failed, t) {
					bad = append(bad, t)
				}
			}
			if len(bad) == 0 {
				continue
			}
			skip[o] = true
			o.Result = &Result{Plant: o.Plant, Verdict: Broken, Tests: map[string]string{}, Unjudged: true, Output: output,
				Reason: fmt.Sprintf("plant %s was not run: without it, %s did not pass either, so a kill would prove nothing; is the lab cluster up, and OPSLAB_CONTEXT its admin's context?", o.Plant.Path(), strings.Join(bad, ", "))}
		}
	}
	return slices.DeleteFunc(todo, func(o *Outcome) bool { return skip[o] }), nil
}

// run runs the outcomes' plants, opts.Jobs at a time.
func run(ctx context.Context, opts Options, todo []*Outcome) error {
	jobs := max(opts.Jobs, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan *Outcome)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range min(jobs, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range ch {
				if opts.Started != nil {
					mu.Lock()
					opts.Started(o.Plant)
					mu.Unlock()
				}
				r, err := opts.Runner.Run(ctx, o.Plant)
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("plant %s: %w", o.Plant.Path(), err)
					cancel()
				}
				o.Result = r
				mu.Unlock()
			}
		}()
	}
	for _, o := range todo {
		select {
		case ch <- o:
		case <-ctx.Done():
		}
	}
	close(ch)
	wg.Wait()
	return first
}

// judge sets the outcome's verdict and problem.
func judge(o *Outcome) {
	if o.Result != nil {
		o.Verdict = o.Result.Verdict
		switch {
		case o.Verdict != Killed:
			o.Problem = o.Result.Reason
			if o.Verdict == Survived {
				o.Problem += "; " + claimText(o.Plant)
			}
		case o.Recorded == nil:
			o.Note = "no verdict recorded: it ran and was killed; go run ./cmd/proofs -w records it"
		case o.Recorded.Key != o.Key:
			o.Note = "its inputs changed: it ran again and was killed; go run ./cmd/proofs -w records it"
		}
		return
	}
	if o.Verdict != "" && o.Verdict != Killed {
		o.Problem = fmt.Sprintf("plant %s %s when it was last run, as %s records; %s", o.Plant.Path(), o.Verdict, SumFile, claimText(o.Plant))
	}
}

// claimText names the claim a surviving plant leaves unproven, with its
// sentence when a page of the chapter marks it.
func claimText(p *Plant) string {
	marked, _ := ChapterMarkers(p.Chapter)
	ms := marked[p.Claim]
	if len(ms) == 0 {
		return fmt.Sprintf("the claim %s (marked in no page yet) is not proven", p.Claim)
	}
	m := ms[0]
	return fmt.Sprintf("the claim %s is not proven: %q (%s:%d)", p.Claim, m.Sentence, filepath.Join(p.Chapter, m.File), m.Line)
}

// writeSum writes a chapter's verdict file from the outcomes: the verdicts of
// its plants that ran, the recorded lines of those that did not, and no line
// for a plant that is gone.
func writeSum(chapter string, old Sum, out []*Outcome) error {
	sum := Sum{}
	for _, o := range out {
		if o.Plant.Chapter != chapter {
			continue
		}
		switch {
		case o.Result != nil && !o.Result.Unjudged:
			sum[o.Plant.Name] = Entry{o.Plant.Name, o.Key, o.Result.Verdict}
		case o.Recorded != nil:
			sum[o.Plant.Name] = *o.Recorded
		}
	}
	name := filepath.Join(chapter, "plants", SumFile)
	if len(sum) == 0 {
		if len(old) > 0 {
			return os.Remove(name)
		}
		return nil
	}
	return os.WriteFile(name, sum.Bytes(), 0o644)
}

// Chapters returns the chapter directories of the repository at root,
// chapters/NN-name, in order.
func Chapters(root string) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "chapters", "[0-9][0-9]-*"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !strings.HasPrefix(filepath.Base(d), ".") {
			out = append(out, d)
		}
	}
	return out, nil
}
