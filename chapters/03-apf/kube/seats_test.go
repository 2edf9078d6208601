package kube

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"

	apf "github.com/opslab/opslab/chapters/03-apf"
)

func TestSeatsOfDefaultLevels(t *testing.T) {
	type row struct {
		Level                        string
		Shares                       int32
		Nominal, Lendable, Borrowing int
		Min, Max                     int
	}
	// kubernetes-facts §9: nominal and lendable seats of the bootstrap
	// levels at the default 600 seats, Σshares = 245. No default level
	// sets borrowingLimitPercent, so each may borrow up to the server's
	// 600 (apf_controller.go, finishQueueSetReconfigsLocked).
	want := []row{
		{"catch-all", 5, 13, 0, 600, 13, 613},
		{"exempt", 0, 0, 0, 600, 0, 600},
		{"global-default", 20, 49, 25, 600, 24, 649},
		{"leader-election", 10, 25, 0, 600, 25, 625},
		{"node-high", 40, 98, 25, 600, 73, 698},
		{"system", 30, 74, 24, 600, 50, 674},
		{"workload-high", 40, 98, 49, 600, 49, 698},
		{"workload-low", 100, 245, 221, 600, 24, 845},
	}
	var got []row
	var fromObjects []apf.LevelSeats
	for _, s := range defaultConfig(t).Seats(apf.DefaultServerSeats) {
		got = append(got, row{s.Level, s.Shares, s.Nominal, s.Lendable, s.Borrowing, s.Min, s.Max})
		fromObjects = append(fromObjects, s.LevelSeats)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Seats(600) (-want +got):\n%s", diff)
	}
	// The demo divides the seats of apf's table of default levels: it
	// must give the same seats as the bootstrap objects.
	if diff := cmp.Diff(fromObjects, apf.Seats(apf.DefaultServerSeats, apf.DefaultLevels())); diff != "" {
		t.Errorf("apf.Seats(600, DefaultLevels()) differs from the seats of the bootstrap objects (-objects +table):\n%s", diff)
	}
}

// TestSeatsExemptSharesCount gives the exempt level shares, which
// validation lets an administrator set (spec.exempt is the one part of
// the mandatory level that may change) and the ensurer leaves alone.
// plSpecCommons reads them, so they join Σshares and every Limited level
// gets fewer seats; the exempt level gets a nominal limit of its own, with
// no borrowing limit.
func TestSeatsExemptSharesCount(t *testing.T) {
	fss, pls := defaultObjects()
	for i, pl := range pls {
		if pl.Name == flowcontrol.PriorityLevelConfigurationNameExempt {
			pls[i] = pl.DeepCopy() // the bootstrap objects are shared
			pls[i].Spec.Exempt.NominalConcurrencyShares = ptr(int32(55))
		}
	}
	c, err := NewConfig(fss, pls)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]LevelSeats{}
	for _, s := range c.Seats(apf.DefaultServerSeats) {
		got[s.Level] = s
	}
	// Σshares = 245 + 55 = 300.
	if n := got["workload-low"].Nominal; n != 200 {
		t.Errorf("workload-low nominal = %d, want ceil(600×100/300) = 200: the exempt level's 55 shares count in the sum", n)
	}
	if e := got["exempt"]; e.Nominal != 110 || e.Max != 110+apf.DefaultServerSeats {
		t.Errorf("exempt = %+v, want nominal ceil(600×55/300) = 110 and max 110+600", e)
	}
}

func TestSeatsRoundUp(t *testing.T) {
	total := 0
	for _, s := range defaultConfig(t).Seats(apf.DefaultServerSeats) {
		total += s.Nominal
	}
	if total != 602 {
		t.Errorf("Σnominal = %d, want 602: each level's share is rounded up, so the sum passes 600", total)
	}
}

func TestSeatsScaleWithServer(t *testing.T) {
	c := defaultConfig(t)
	for _, tc := range []struct {
		name, reason string
		server       int
		level        string
		want         int
	}{
		{"default", "", 600, "workload-low", 245},
		{"doubled", "ceil(1200×100/245) = 490", 1200, "workload-low", 490},
		{"small server", "ceil(60×5/245) = 2: every limited level keeps at least a seat while it has shares", 60, "catch-all", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range c.Seats(tc.server) {
				if s.Level == tc.level && s.Nominal != tc.want {
					t.Errorf("Seats(%d)[%s].Nominal = %d, want %d (%s)", tc.server, tc.level, s.Nominal, tc.want, tc.reason)
				}
			}
		})
	}
}

func TestSeatsNewLevelTakesFromOthers(t *testing.T) {
	fss, pls := defaultObjects()
	c, err := NewConfig(fss, append(pls, queueLevel("apf-lab-runaway", 5, 0, ptr(int32(0)))))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]LevelSeats{}
	for _, s := range c.Seats(apf.DefaultServerSeats) {
		got[s.Level] = s
	}
	// Σshares grows from 245 to 250.
	if n := got["apf-lab-runaway"]; n.Nominal != 12 || n.Borrowing != 0 || n.Max != 12 {
		t.Errorf("apf-lab-runaway = %+v, want nominal ceil(600×5/250) = 12, borrowing 0, max 12", n)
	}
	if n := got["workload-low"].Nominal; n != 240 {
		t.Errorf("workload-low nominal = %d, want ceil(600×100/250) = 240 (it was 245)", n)
	}
}

func TestSeatsExemptBorrowsUpToServer(t *testing.T) {
	for _, s := range defaultConfig(t).Seats(apf.DefaultServerSeats) {
		if s.Type == flowcontrol.PriorityLevelEnablementExempt && (s.Nominal != 0 || s.Max != apf.DefaultServerSeats) {
			t.Errorf("exempt = %+v, want nominal 0 and max 600: it has no borrowing limit", s)
		}
	}
}

// TestDefaultLevelsAreBootstrap reads every field of upstream's default
// levels that seats and queuing use and compares it with apf's table,
// which the demo shows.
func TestDefaultLevelsAreBootstrap(t *testing.T) {
	var want []apf.Level
	_, pls := defaultObjects()
	for _, pl := range pls {
		l := apf.Level{Name: pl.Name}
		switch spec := pl.Spec; spec.Type {
		case flowcontrol.PriorityLevelEnablementExempt:
			l.Exempt = true
			l.Shares = *spec.Exempt.NominalConcurrencyShares
			l.LendablePercent = *spec.Exempt.LendablePercent
		case flowcontrol.PriorityLevelEnablementLimited:
			l.Shares = *spec.Limited.NominalConcurrencyShares
			l.LendablePercent = *spec.Limited.LendablePercent
			l.BorrowingLimitPercent = spec.Limited.BorrowingLimitPercent
			switch r := spec.Limited.LimitResponse; r.Type {
			case flowcontrol.LimitResponseTypeQueue:
				l.Queuing = &apf.Queuing{Queues: r.Queuing.Queues, HandSize: r.Queuing.HandSize, QueueLengthLimit: r.Queuing.QueueLengthLimit}
			case flowcontrol.LimitResponseTypeReject:
			default:
				t.Fatalf("bootstrap level %s: limitResponse type %q is neither Queue nor Reject", pl.Name, r.Type)
			}
		default:
			t.Fatalf("bootstrap level %s: type %q is neither Exempt nor Limited", pl.Name, spec.Type)
		}
		want = append(want, l)
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
	if diff := cmp.Diff(want, apf.DefaultLevels()); diff != "" {
		t.Errorf("apf.DefaultLevels() differs from bootstrap's levels (-bootstrap +table):\n%s", diff)
	}
}

func TestCoreLevelReadsSpec(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		level        *flowcontrol.PriorityLevelConfiguration
		want         apf.Level
	}{
		{"exempt", "an exempt level has shares and a lendable percent, no borrowing limit and no queues",
			bootstrap.MandatoryPriorityLevelConfigurationExempt,
			apf.Level{Name: "exempt", Exempt: true}},
		{"reject", "catch-all rejects: no queues",
			bootstrap.MandatoryPriorityLevelConfigurationCatchAll,
			apf.Level{Name: "catch-all", Shares: 5}},
		{"queue with a borrowing limit", "every field of the limited section is read",
			queueLevel("apf-lab-runaway", 5, 10, ptr(int32(20))),
			apf.Level{Name: "apf-lab-runaway", Shares: 5, LendablePercent: 10, BorrowingLimitPercent: ptr(int32(20)), Queuing: &apf.Queuing{Queues: 16, HandSize: 4, QueueLengthLimit: 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, coreLevel(tc.level)); diff != "" {
				t.Errorf("coreLevel(%s) (-want +got), %s:\n%s", tc.level.Name, tc.reason, diff)
			}
		})
	}
}
