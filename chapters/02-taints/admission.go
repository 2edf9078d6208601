package taints

// DefaultTolerationSeconds is the tolerationSeconds the admission plugin of
// the same name writes, the default of kube-apiserver's
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds.
const DefaultTolerationSeconds = 300

// AdmitDefaults returns tols with the tolerations the DefaultTolerationSeconds
// admission plugin adds to a pod on create and update: for each of the
// not-ready and unreachable keys, {key Exists NoExecute for seconds}, appended
// only when no toleration already covers that key (the key itself or empty)
// with effect NoExecute or empty. The plugin looks at key and effect only: a
// toleration with a value or without seconds still counts as present.
func AdmitDefaults(tols []Toleration, seconds int64) []Toleration {
	out := append([]Toleration(nil), tols...)
	for _, key := range []string{KeyNotReady, KeyUnreachable} {
		if !coversKeyNoExecute(tols, key) {
			out = append(out, Toleration{Key: key, Operator: Exists, Effect: NoExecute, Seconds: Seconds(seconds)})
		}
	}
	return out
}

// coversKeyNoExecute reports whether some toleration of tols stops the
// plugin from adding its own for key: one whose key is key or empty and
// whose effect is NoExecute or empty. Operator, value and seconds are not
// read.
func coversKeyNoExecute(tols []Toleration, key string) bool {
	for _, t := range tols {
		if (t.Key == key || t.Key == "") && (t.Effect == NoExecute || t.Effect == "") {
			return true
		}
	}
	return false
}
