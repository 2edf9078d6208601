package kube

import (
	"strconv"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Origin says where kube-apiserver's defaults put an object.
type Origin int

const (
	// Yours is an object the server's defaults do not name.
	Yours Origin = iota
	// Suggested objects are the defaults you may change: the server
	// re-creates them and, unless told not to, puts their spec back.
	Suggested
	// Mandatory objects (exempt and catch-all) always get their spec back.
	Mandatory
)

// An EnsureAction is what the API server's configuration ensurer does to
// one object on one of its passes.
type EnsureAction string

const (
	Keep        EnsureAction = "keep"
	Create      EnsureAction = "create"       // the object is missing
	RestoreSpec EnsureAction = "restore spec" // its spec differs from the default's
	Delete      EnsureAction = "delete"       // an object marked for auto-update that the defaults no longer name
)

// AutoUpdateAnnotation is the annotation that decides whether the ensurer
// may put a suggested object's spec back.
const AutoUpdateAnnotation = flowcontrol.AutoUpdateAnnotationKey // apf.kubernetes.io/autoupdate-spec

// Ensure returns what the ensurer of kube-apiserver
// (pkg/registry/flowcontrol/ensurer in k8s.io/kubernetes, started by a
// post-start hook and run again every minute) does to an object of the
// given origin. exists says whether the object is there, annotations and
// generation are its metadata, and specEqual says whether its spec equals
// the default's, as the ensurer compares them ([LevelSpecEqual] for a
// level).
//
//   - A missing suggested or mandatory object is re-created.
//   - A mandatory object's spec is always put back, as far as the ensurer
//     compares it: the exempt level's shares and lendable percent are left
//     out (see [LevelSpecEqual]).
//   - A suggested object's spec is put back when the annotation
//     apf.kubernetes.io/autoupdate-spec parses as true, or, when it is
//     missing or not a boolean, when the object was never changed
//     (generation 1). "false" keeps your edit. The server writes the
//     annotation itself ("true" on the objects it creates), so editing a
//     suggested object's spec without setting it to "false" is undone
//     within about a minute.
//   - An object of yours whose annotation parses as true is deleted: the
//     ensurer takes it for a default that a newer server no longer ships.
//     Never copy the annotation onto your own objects.
func Ensure(origin Origin, exists bool, annotations map[string]string, generation int64, specEqual bool) EnsureAction {
	auto, err := strconv.ParseBool(annotations[AutoUpdateAnnotation])
	annotated := err == nil
	switch {
	case origin == Yours:
		if exists && annotated && auto {
			return Delete
		}
		return Keep
	case !exists:
		return Create
	case specEqual:
		return Keep
	case origin == Mandatory:
		return RestoreSpec
	case annotated && auto, !annotated && generation == 1:
		return RestoreSpec
	}
	return Keep
}

// LevelSpecEqual reports whether the ensurer finds have's spec equal to
// the default want's, as plcSpecEqualish in the ensurer compares them:
// want with the API server's defaults filled in, and for the mandatory
// level exempt, without spec.exempt's nominalConcurrencyShares and
// lendablePercent. Validation lets an administrator change those two on
// the exempt level and nothing else of its spec; the ensurer keeps them.
func LevelSpecEqual(want, have *flowcontrol.PriorityLevelConfiguration) bool {
	w := want.DeepCopy()
	SetDefaults(nil, []*flowcontrol.PriorityLevelConfiguration{w})
	if want.Name == flowcontrol.PriorityLevelConfigurationNameExempt {
		if have.Spec.Exempt == nil || w.Spec.Exempt == nil {
			return false
		}
		w.Spec.Exempt.NominalConcurrencyShares = have.Spec.Exempt.NominalConcurrencyShares
		w.Spec.Exempt.LendablePercent = have.Spec.Exempt.LendablePercent
	}
	return equality.Semantic.DeepEqual(w.Spec, have.Spec)
}
