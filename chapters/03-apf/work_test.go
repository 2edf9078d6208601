package apf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/util/flowcontrol/request"
)

func TestMaxSeats(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		nominal      int
		queuing      *Queuing
		want         int
	}{
		{"lab level", "12 nominal seats, hand of 4: min(ceil(1.8), 12/4) = 2", 12, queuing(16, 4, 20), 2},
		{"workload-low", "245 seats, hand of 6: min(37, 40) = 37: above the write estimator's cap of 10, below the LIST cap of 100 that v1.37 uses", 245, queuing(128, 6, 50), 37},
		{"small level, big hand", "3/8 is 0 in integer division, and the floor is 1", 3, queuing(64, 8, 50), 1},
		{"hand divides first", "40 seats, hand of 8: min(6, 5) = 5", 40, queuing(64, 8, 50), 5},
		{"hand of one", "20 seats, hand of 1: min(3, 20) = 3; a hand of one card is a valid hand", 20, queuing(16, 1, 50), 3},
		{"reject", "a level without queues gets no limit of its own", 12, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MaxSeats(tc.nominal, tc.queuing); got != tc.want {
				t.Errorf("MaxSeats(%d, %+v) = %d, want %d (%s)", tc.nominal, tc.queuing, got, tc.want, tc.reason)
			}
		})
	}
}

func TestListSeats(t *testing.T) {
	big := &ResourceStats{Objects: 2000, AverageSize: 3000} // 6 MB in all
	for _, tc := range []struct {
		name, reason string
		stats        *ResourceStats
		list         List
		levelMax     int
		want         int
	}{
		{"not measured yet", "a resource the server has not counted costs one seat", nil, List{}, 0, 1},
		{"from cache", "the watch cache streams: at most 1 MB counts, 10 seats", big, List{FromCache: true}, 0, 10},
		{"from etcd", "6 MB from etcd: 60 seats", big, List{}, 0, 60},
		{"from etcd, capped by the level", "the lab level's 2", big, List{}, 2, 2},
		{"limit", "500 objects of 3 kB: 15 seats", big, List{Limit: 500}, 0, 15},
		{"selector", "a selector loads at least half of everything: 3 MB", big, List{Selector: true, Limit: 10}, 0, 30},
		{"one object", "a field selector on the name loads one", big, List{Single: true}, 0, 1},
		{"a few small objects", "at least one seat", &ResourceStats{Objects: 3, AverageSize: 1000}, List{}, 0, 1},
		{"huge", "never above 100", &ResourceStats{Objects: 100_000, AverageSize: 10_000}, List{}, 0, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ListSeats(tc.stats, tc.list, tc.levelMax); got != tc.want {
				t.Errorf("ListSeats(%+v, %+v, %d) = %d, want %d (%s)", tc.stats, tc.list, tc.levelMax, got, tc.want, tc.reason)
			}
		})
	}
}

func TestMutatingSeats(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		watchers     int
		levelMax     int
		want         Write
	}{
		{"few watchers", "under 10 watchers a write costs one seat and nothing after", 9, 0, Write{Initial: 1}},
		{"ten watchers", "one seat after, for 5 ms", 10, 0, Write{Initial: 1, Final: 1, Extra: 0.005}},
		{"45 watchers", "ceil(4.5) = 5 seats for 5 ms", 45, 0, Write{Initial: 1, Final: 5, Extra: 0.005}},
		{"capped by the level", "5 seats of work on 2 seats: held 12.5 ms", 45, 2, Write{Initial: 1, Final: 2, Extra: 0.0125}},
		{"capped at 10", "300 watchers: 30 seats of work on 10", 300, 0, Write{Initial: 1, Final: 10, Extra: 0.015}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MutatingSeats(tc.watchers, tc.levelMax)
			if got.Initial != tc.want.Initial || got.Final != tc.want.Final || fmt.Sprintf("%.6f", got.Extra) != fmt.Sprintf("%.6f", tc.want.Extra) {
				t.Errorf("MutatingSeats(%d, %d) = %+v, want %+v (%s)", tc.watchers, tc.levelMax, got, tc.want, tc.reason)
			}
		})
	}
}

// TestWorkEstimateMatchesUpstream runs random LISTs and writes through
// upstream's work estimator (k8s.io/apiserver/pkg/util/flowcontrol/request,
// default configuration and feature gates) and through ListSeats and
// MutatingSeats. A LIST with resourceVersion "" is left out: upstream
// serves it from the cache only when etcd says it supports progress
// notifications, which a unit test has no etcd to say; the end-to-end test
// measures that case on the lab's server.
func TestWorkEstimateMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2026))
	for i := range 20_000 {
		stats := storage.Stats{ObjectCount: rng.Int64N(5000), EstimatedAverageObjectSizeBytes: rng.Int64N(20_000)}
		if rng.IntN(10) == 0 {
			stats.EstimatedAverageObjectSizeBytes = 0
		}
		watchers := rng.IntN(400)
		levelMax := []int{0, 1, 2, 5, 37, 200}[rng.IntN(6)]
		verb := []string{"list", "create", "update", "patch", "delete"}[rng.IntN(5)]
		q := url.Values{}
		ri := &apirequest.RequestInfo{IsResourceRequest: true, Verb: verb, Resource: "configmaps", Namespace: "x"}
		var l List
		if verb == "list" {
			switch rng.IntN(4) {
			case 0:
				q.Set("resourceVersion", "0")
			case 1:
				q.Set("resourceVersion", "7")
				q.Set("resourceVersionMatch", "Exact")
			case 2:
				q.Set("resourceVersion", "7")
			case 3:
				q.Set("continue", "abc")
			}
			if rng.IntN(2) == 0 {
				l.Limit = rng.Int64N(3000)
				q.Set("limit", strconv.FormatInt(l.Limit, 10))
			}
			if rng.IntN(3) == 0 {
				q.Set("labelSelector", "a=b")
				l.Selector = true
			}
			if rng.IntN(8) == 0 {
				ri.Name = "one"
				l.Single = true
			}
			l.FromCache = ListFromCache(q.Get("resourceVersion"), q.Get("resourceVersionMatch"), l.Limit, q.Get("continue") != "")
		} else {
			ri.Name = "one"
		}
		est := request.NewWorkEstimator(
			func(string) (storage.Stats, error) { return stats, nil },
			func(*apirequest.RequestInfo) int { return watchers },
			request.DefaultWorkEstimatorConfig(),
			func(string) uint64 { return uint64(levelMax) })
		req, err := http.NewRequestWithContext(apirequest.WithRequestInfo(context.Background(), ri), "GET", "/api/v1/namespaces/x/configmaps?"+q.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		up := est.EstimateWork(req, "fs", "pl")
		var got request.WorkEstimate
		if verb == "list" {
			got.InitialSeats = uint64(ListSeats(&ResourceStats{Objects: stats.ObjectCount, AverageSize: stats.EstimatedAverageObjectSizeBytes}, l, levelMax))
		} else {
			w := MutatingSeats(watchers, levelMax)
			got = request.WorkEstimate{InitialSeats: uint64(w.Initial), FinalSeats: uint64(w.Final), AdditionalLatency: time.Duration(w.Extra * float64(time.Second))}
		}
		if got.InitialSeats != up.InitialSeats || got.FinalSeats != up.FinalSeats || (got.AdditionalLatency-up.AdditionalLatency).Abs() > time.Microsecond {
			t.Fatalf("case %d: %s ?%s, %+v, %d watchers, level max %d: model %+v, upstream %+v", i, verb, q.Encode(), stats, watchers, levelMax, got, up)
		}
	}
}
