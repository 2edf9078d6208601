package kube

import "testing"

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
