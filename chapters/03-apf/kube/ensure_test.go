package kube

import (
	"testing"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
)

func TestEnsure(t *testing.T) {
	on := map[string]string{AutoUpdateAnnotation: "true"}
	off := map[string]string{AutoUpdateAnnotation: "false"}
	junk := map[string]string{AutoUpdateAnnotation: "sometimes"}
	for _, tc := range []struct {
		name, reason string
		origin       Origin
		exists       bool
		annotations  map[string]string
		generation   int64
		specEqual    bool
		want         EnsureAction
	}{
		{"deleted suggested", "a suggested object you delete comes back", Suggested, false, nil, 0, false, Create},
		{"deleted mandatory", "", Mandatory, false, nil, 0, false, Create},
		{"edited suggested, annotation true", "the server's own annotation: your edit is undone", Suggested, true, on, 2, false, RestoreSpec},
		{"edited suggested, annotation false", "false keeps the edit", Suggested, true, off, 2, false, Keep},
		{"edited mandatory, annotation false", "a mandatory object's spec always comes back", Mandatory, true, off, 2, false, RestoreSpec},
		{"no annotation, never edited", "generation 1: safe to update", Suggested, true, nil, 1, false, RestoreSpec},
		{"no annotation, edited", "generation 2: somebody changed it, keep it", Suggested, true, nil, 2, false, Keep},
		{"annotation not a boolean, edited", "treated as missing", Suggested, true, junk, 3, false, Keep},
		{"unchanged", "nothing to do", Suggested, true, on, 1, true, Keep},
		{"yours, annotated true", "taken for a default the server no longer ships, and deleted", Yours, true, on, 1, false, Delete},
		{"yours, annotated false", "", Yours, true, off, 1, false, Keep},
		{"yours, no annotation", "", Yours, true, nil, 4, false, Keep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ensure(tc.origin, tc.exists, tc.annotations, tc.generation, tc.specEqual); got != tc.want {
				t.Errorf("Ensure = %s, want %s (%s)", got, tc.want, tc.reason)
			}
		})
	}
}

// TestEnsureKeepsExemptShares edits the mandatory levels as an
// administrator may: the exempt level's shares and lendable percent, which
// validation allows, and catch-all's shares, which it does not allow on
// the exempt level and the ensurer undoes on catch-all. The ensurer
// compares the exempt level without those two fields
// (ensurer/prioritylevelconfiguration.go, plcSpecEqualish), so its pass
// keeps them: the spec of a mandatory object is not put back whole.
func TestEnsureKeepsExemptShares(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		level        string
		edit         func(*flowcontrol.PriorityLevelConfigurationSpec)
		want         EnsureAction
	}{
		{"exempt, untouched", "", "exempt", func(*flowcontrol.PriorityLevelConfigurationSpec) {}, Keep},
		{"exempt, shares and lendable set", "spec.exempt is the administrator's to set; the ensurer compares without it", "exempt",
			func(s *flowcontrol.PriorityLevelConfigurationSpec) {
				s.Exempt.NominalConcurrencyShares = ptr(int32(40))
				s.Exempt.LendablePercent = ptr(int32(50))
			}, Keep},
		{"catch-all, shares set", "every other field of a mandatory level comes back", "catch-all",
			func(s *flowcontrol.PriorityLevelConfigurationSpec) {
				s.Limited.NominalConcurrencyShares = ptr(int32(40))
			}, RestoreSpec},
		{"catch-all, untouched", "the defaults the server fills in are not an edit", "catch-all", func(*flowcontrol.PriorityLevelConfigurationSpec) {}, Keep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var def *flowcontrol.PriorityLevelConfiguration
			for _, pl := range bootstrap.MandatoryPriorityLevelConfigurations {
				if pl.Name == tc.level {
					def = pl
				}
			}
			have := def.DeepCopy()
			SetDefaults(nil, []*flowcontrol.PriorityLevelConfiguration{have})
			tc.edit(&have.Spec)
			if got := Ensure(Mandatory, true, nil, 2, LevelSpecEqual(def, have)); got != tc.want {
				t.Errorf("Ensure(%s edited) = %s, want %s (%s)", tc.level, got, tc.want, tc.reason)
			}
		})
	}
}
