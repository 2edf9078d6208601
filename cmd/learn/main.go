// Learn runs the course's build-along tracks: in each chapter the learner
// writes the model's heart, step by step, in a workspace cut from the model
// (under _learn/, never overwritten), and the chapter's tests say where the
// learner's code and Kubernetes differ.
//
// start creates chapter N's workspace if it is missing and shows the
// current step. watch runs the current step's tests on every save of a file
// of the workspace, shows the first failure with the sentence of the prose
// it proves, moves to the next step when one passes, and shows the progress;
// -once runs once and exits, 1 when the step fails. hint shows the current
// step's next hint. reset puts a step's functions back to their start,
// keeping the learner's file as FILE.go.bak-K. status shows every chapter's
// progress. The repository is the one the working directory is in, or
// $OPSLAB_ROOT. grade runs every step of the workspaces given and prints each
// test's points, or writes Gradescope's results.json with -json; it judges
// the learner's code by the chapter's tests, in a copy of the workspace, so
// a test file edited in the workspace changes no point, and reads each
// test's verdict from a pipe of its own (package seal), never from what
// the test binary prints, which the learner's code can write.
//
// Usage:
//
//	learn [-dir DIR] start N
//	learn [-dir DIR] watch [-once] N
//	learn [-dir DIR] hint N
//	learn [-dir DIR] reset N STEP
//	learn [-dir DIR] status [N]
//	learn [-dir DIR] grade [-json FILE] N...
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/internal/cmdshell"
	"github.com/opslab/opslab/internal/learn"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(cmdshell.Exit("learn", run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

const usage = "usage: learn [-dir DIR] start|watch [-once]|hint|status|grade N, or reset N STEP"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("learn", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "_learn", "the workspaces' directory, relative to the repository's root")
	if err := fs.Parse(args); err != nil {
		return cmdshell.Printed(err)
	}
	args = fs.Args()
	if len(args) == 0 {
		return cmdshell.Usagef("no subcommand; %s", usage)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	if r := os.Getenv("OPSLAB_ROOT"); r != "" {
		cwd = r
	}
	root, err := learn.FindRoot(cwd)
	if err != nil {
		return err
	}
	sub, args := args[0], args[1:]
	l := &learner{root: root, base: *dir, out: stdout}
	switch sub {
	case "start":
		w, err := l.workspace(args, 1)
		if err != nil {
			return err
		}
		return l.start(w)
	case "watch":
		wfs := flag.NewFlagSet("learn watch", flag.ContinueOnError)
		wfs.SetOutput(stderr)
		once := wfs.Bool("once", false, "run the current step once and exit: 0 when it passes, 1 when not")
		if err := wfs.Parse(args); err != nil {
			return cmdshell.Printed(err)
		}
		w, err := l.workspace(wfs.Args(), 1)
		if err != nil {
			return err
		}
		return l.watch(ctx, w, *once)
	case "hint":
		w, err := l.workspace(args, 1)
		if err != nil {
			return err
		}
		return l.hint(w)
	case "reset":
		if len(args) != 2 {
			return cmdshell.Usagef("reset takes a chapter and a step: learn reset 2 tolerates")
		}
		w, err := l.workspace(args[:1], 1)
		if err != nil {
			return err
		}
		return l.reset(w, args[1])
	case "status":
		if len(args) == 0 {
			for _, t := range chapters.Tracks {
				l.status(l.ws(t))
			}
			return nil
		}
		w, err := l.workspace(args, 1)
		if err != nil {
			return err
		}
		l.status(w)
		return nil
	case "grade":
		gfs := flag.NewFlagSet("learn grade", flag.ContinueOnError)
		gfs.SetOutput(stderr)
		out := gfs.String("json", "", "write Gradescope's results.json here")
		if err := gfs.Parse(args); err != nil {
			return cmdshell.Printed(err)
		}
		if gfs.NArg() == 0 {
			return cmdshell.Usagef("grade takes the chapters to grade: learn grade 2")
		}
		var ws []learn.Workspace
		for _, a := range gfs.Args() {
			w, err := l.workspace([]string{a}, 1)
			if err != nil {
				return err
			}
			ws = append(ws, w)
		}
		return l.grade(ctx, ws, *out)
	}
	return cmdshell.Usagef("unknown subcommand %q; %s", sub, usage)
}

// testPos is the position go test puts before a test's message.
var testPos = regexp.MustCompile(`^\w+_test\.go:\d+: `)

type learner struct {
	root, base string
	out        io.Writer
}

func (l *learner) ws(t learn.Track) learn.Workspace {
	return learn.Workspace{Root: l.root, Base: l.base, Track: t}
}

// workspace reads the chapter number of args.
func (l *learner) workspace(args []string, n int) (learn.Workspace, error) {
	if len(args) != n {
		return learn.Workspace{}, cmdshell.Usagef("give one chapter number, as in: learn start 2")
	}
	num, err := strconv.Atoi(args[0])
	for _, t := range chapters.Tracks {
		if err == nil && t.Number() == num {
			return l.ws(t), nil
		}
	}
	var have []string
	for _, t := range chapters.Tracks {
		have = append(have, strconv.Itoa(t.Number()))
	}
	return learn.Workspace{}, cmdshell.Usagef("no track for chapter %q; the tracks are chapters %s", args[0], strings.Join(have, ", "))
}

func (l *learner) start(w learn.Workspace) error {
	created, err := w.Create()
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(l.out, "created %s/: chapter %d's model with %d steps to write; it is yours, start never overwrites it\n",
			w.Dir(), w.Track.Number(), len(w.Track.Steps))
	} else {
		fmt.Fprintf(l.out, "continuing in %s/\n", w.Dir())
		// The course's tests may have moved on since the workspace was
		// made; the learner's code stays as it is.
		wrote, replaced, err := w.Refresh()
		if err != nil {
			return err
		}
		for _, f := range wrote {
			fmt.Fprintf(l.out, "  the chapter's %s changed since your workspace was made: updated", f)
			if replaced[f] {
				fmt.Fprintf(l.out, " (the version you had is %s.old)", f)
			}
			fmt.Fprintln(l.out)
		}
	}
	s, err := w.Load()
	if err != nil {
		return err
	}
	l.progress(w, s)
	if s.Done < len(w.Track.Steps) {
		l.describe(w, s.Done)
	}
	return nil
}

// describe says what the step asks for and where.
func (l *learner) describe(w learn.Workspace, i int) {
	st := w.Track.Steps[i]
	fmt.Fprintf(l.out, "\nstep %d of %d, %s: %s\n", i+1, len(w.Track.Steps), st.ID, st.Title)
	for _, f := range st.Funcs {
		file, name, _ := strings.Cut(f, "#")
		fmt.Fprintf(l.out, "  write %s in %s\n", name, path.Join(w.Dir(), file))
	}
	fmt.Fprintf(l.out, "  read %s#%s\n", w.README(), st.Section)
}

func (l *learner) progress(w learn.Workspace, s learn.State) {
	var b strings.Builder
	for i, st := range w.Track.Steps {
		mark := " "
		switch {
		case i < s.Done:
			mark = "x"
		case i == s.Done:
			mark = ">"
		}
		fmt.Fprintf(&b, " [%s] %s", mark, st.ID)
	}
	fmt.Fprintf(l.out, "progress: %d of %d done;%s\n", s.Done, len(w.Track.Steps), b.String())
}

func (l *learner) needWorkspace(w learn.Workspace) (learn.State, error) {
	if !w.Exists() {
		n := w.Track.Number()
		return learn.State{}, fmt.Errorf("chapter %d's track is not started; run make learn-chapter-%d (or learn start %d)", n, n, n)
	}
	return w.Load()
}

func (l *learner) watch(ctx context.Context, w learn.Workspace, once bool) error {
	s, err := l.needWorkspace(w)
	if err != nil {
		return err
	}
	claims, err := learn.Claims(path.Join(l.root, w.README()))
	if err != nil {
		return err
	}
	for {
		if s.Done == len(w.Track.Steps) {
			fmt.Fprintf(l.out, "chapter %d's track is done: every step passes\n", w.Track.Number())
			return nil
		}
		seen := w.Mtime()
		st := w.Track.Steps[s.Done]
		// The step's tests that ask Kubernetes' own code link for seconds;
		// the learner hears the others first.
		shown := false
		r := w.RunStaged(ctx, s.Done, func(own learn.Run) {
			if own.Passed() {
				fmt.Fprintf(l.out, "step %d, %s: %d of %d tests pass (%.1fs); asking Kubernetes' own code\n", s.Done+1, st.ID, len(own.Results), len(st.AllTests()), own.Took.Seconds())
				return
			}
			l.failure(w, s, own, claims)
			fmt.Fprintf(l.out, "  asking Kubernetes' own code\n")
			shown = true
		})
		if ctx.Err() != nil {
			return nil
		}
		if r.Passed() {
			fmt.Fprintf(l.out, "step %d, %s: passed (%d tests, %.1fs)\n", s.Done+1, st.ID, len(r.Results), r.Took.Seconds())
			s.Done++
			if err := w.Save(s); err != nil {
				return err
			}
			if s.Done < len(w.Track.Steps) {
				l.describe(w, s.Done)
			}
			continue
		}
		if shown {
			l.oracle(w, s, r, "")
			l.tally(w, s, r)
		} else {
			l.failure(w, s, r, claims)
			l.oracle(w, s, r, first(r))
			l.tally(w, s, r)
		}
		if once {
			return cmdshell.Silent(1)
		}
		fmt.Fprintf(l.out, "waiting for a save in %s/ (Ctrl-C stops; make hint-chapter-%d or learn hint %d gives a hint)\n", w.Dir(), w.Track.Number(), w.Track.Number())
		for w.Mtime() == seen {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(200 * time.Millisecond):
			}
		}
		fmt.Fprintln(l.out)
	}
}

// failure shows the first failure of r in words: the test's own message,
// the sentence it proves and the section to read.
func (l *learner) failure(w learn.Workspace, s learn.State, r learn.Run, claims map[string]learn.Claim) {
	st := w.Track.Steps[s.Done]
	fmt.Fprintf(l.out, "step %d of %d, %s: %s\n", s.Done+1, len(w.Track.Steps), st.ID, st.Title)
	if r.BuildErr != "" {
		lines := strings.Split(r.BuildErr, "\n")
		fmt.Fprintf(l.out, "  your workspace does not build:\n")
		for _, line := range lines[:min(len(lines), 8)] {
			fmt.Fprintf(l.out, "    %s\n", line)
		}
		return
	}
	first, _ := r.FirstFailure()
	fmt.Fprintf(l.out, "  %s fails:\n", first.Test)
	for _, line := range first.Output[:min(len(first.Output), 6)] {
		fmt.Fprintf(l.out, "    %s\n", line)
	}
	c, ok := claims[first.Test]
	for _, sub := range first.Failed {
		// A failing case the prose links on its own says more.
		if sc, found := claims[sub]; found {
			c, ok = sc, true
			break
		}
	}
	if ok {
		fmt.Fprintf(l.out, "  it proves: %s\n  read: %s#%s (%s)\n", c.Sentence, w.README(), c.Anchor, c.Section)
	} else {
		fmt.Fprintf(l.out, "  read: %s#%s\n", w.README(), st.Section)
	}
}

// first is the name of r's first failing test, "" when none fails.
func first(r learn.Run) string {
	f, _ := r.FirstFailure()
	return f.Test
}

// oracle shows the oracle's counterexample when the step's oracle failed
// and is not the failure already shown (shown).
func (l *learner) oracle(w learn.Workspace, s learn.State, r learn.Run, shown string) {
	st := w.Track.Steps[s.Done]
	if r.BuildErr != "" {
		return
	}
	for _, res := range r.Results {
		if res.Test == st.Oracle && res.Test != shown && !res.Passed {
			fmt.Fprintf(l.out, "  against Kubernetes (%s):\n", res.Test)
			for _, line := range res.Output[:min(len(res.Output), 4)] {
				fmt.Fprintf(l.out, "    %s\n", testPos.ReplaceAllString(line, ""))
			}
		}
	}
}

// tally counts the step's tests that pass, then shows the track's progress.
func (l *learner) tally(w learn.Workspace, s learn.State, r learn.Run) {
	if r.BuildErr == "" {
		passed := 0
		for _, res := range r.Results {
			if res.Passed {
				passed++
			}
		}
		fmt.Fprintf(l.out, "  %d of %d tests pass\n", passed, len(r.Results))
	}
	l.progress(w, s)
}

func (l *learner) hint(w learn.Workspace) error {
	s, err := l.needWorkspace(w)
	if err != nil {
		return err
	}
	if s.Done == len(w.Track.Steps) {
		fmt.Fprintf(l.out, "chapter %d's track is done: no hint needed\n", w.Track.Number())
		return nil
	}
	st := w.Track.Steps[s.Done]
	if s.Hints == nil {
		s.Hints = map[string]int{}
	}
	n := min(s.Hints[st.ID]+1, len(st.Hints))
	s.Hints[st.ID] = n
	for i := range n {
		fmt.Fprintf(l.out, "hint %d of %d for step %s: %s\n", i+1, len(st.Hints), st.ID, st.Hints[i])
	}
	return w.Save(s)
}

func (l *learner) reset(w learn.Workspace, id string) error {
	s, err := l.needWorkspace(w)
	if err != nil {
		return err
	}
	i, ok := w.Track.Step(id)
	if !ok {
		var ids []string
		for _, st := range w.Track.Steps {
			ids = append(ids, st.ID)
		}
		return cmdshell.Usagef("chapter %d has no step %q; its steps are %s", w.Track.Number(), id, strings.Join(ids, ", "))
	}
	backups, err := learn.Reblank(path.Join(l.root, w.Dir()), w.Track, i)
	if err != nil {
		return err
	}
	s.Done = min(s.Done, i)
	if err := w.Save(s); err != nil {
		return err
	}
	fmt.Fprintf(l.out, "step %d, %s, is back at its start; your version is kept in %s\n", i+1, w.Track.Steps[i].ID, strings.Join(backups, ", "))
	l.progress(w, s)
	return nil
}

func (l *learner) status(w learn.Workspace) {
	n := w.Track.Number()
	if !w.Exists() {
		fmt.Fprintf(l.out, "chapter %d: track not started (%d steps); make learn-chapter-%d starts it\n", n, len(w.Track.Steps), n)
		return
	}
	s, err := w.Load()
	if err != nil {
		fmt.Fprintf(l.out, "chapter %d: %v\n", n, err)
		return
	}
	fmt.Fprintf(l.out, "chapter %d: ", n)
	l.progress(w, s)
}

// A gradescopeTest is one test in Gradescope's results.json.
type gradescopeTest struct {
	Name     string  `json:"name"`
	Score    float64 `json:"score"`
	MaxScore float64 `json:"max_score"`
	Output   string  `json:"output,omitempty"`
}

// grade runs every step of each workspace, one point a test, and prints
// the points or writes them as Gradescope's results.json.
func (l *learner) grade(ctx context.Context, ws []learn.Workspace, out string) error {
	var tests []gradescopeTest
	var score, max float64
	for _, w := range ws {
		if !w.Exists() {
			return fmt.Errorf("no workspace %s/ to grade", w.Dir())
		}
		// The learner's code with the chapter's tests, in a copy: a test
		// edited to pass scores nothing. One test binary a package, whose
		// verdicts come through the seal, not its output (sealed.go).
		g, done, err := w.ForGrading()
		if err != nil {
			return fmt.Errorf("preparing %s/ for grading: %w", w.Dir(), err)
		}
		runs := sealedRunTrack(ctx, g)
		done()
		ours := strings.NewReplacer(g.Dir(), w.Dir()).Replace
		for i, st := range w.Track.Steps {
			r := runs[i]
			byName := map[string]learn.Result{}
			for _, res := range r.Results {
				byName[res.Test] = res
			}
			for _, name := range st.AllTests() {
				res := byName[name]
				t := gradescopeTest{Name: fmt.Sprintf("chapter %d, step %d %s: %s", w.Track.Number(), i+1, st.ID, name), MaxScore: 1}
				switch {
				case r.BuildErr != "":
					t.Output = "does not build: " + ours(r.BuildErr)
				case res.Passed:
					t.Score = 1
				case !res.Ran:
					t.Output = "did not run: " + ours(strings.Join(res.Output, "\n"))
				default:
					t.Output = ours(strings.Join(res.Output, "\n"))
				}
				score += t.Score
				max += t.MaxScore
				tests = append(tests, t)
				fmt.Fprintf(l.out, "%g/%g %s\n", t.Score, t.MaxScore, t.Name)
			}
		}
	}
	fmt.Fprintf(l.out, "total %g/%g\n", score, max)
	if out == "" {
		return nil
	}
	b, err := json.MarshalIndent(struct {
		Score float64          `json:"score"`
		Tests []gradescopeTest `json:"tests"`
	}{score, tests}, "", "  ")
	if err != nil {
		return err
	}
	return errors.Join(os.WriteFile(out, append(b, '\n'), 0o644))
}
