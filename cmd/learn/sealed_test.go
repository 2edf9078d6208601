package main

import (
	"testing"

	"github.com/opslab/opslab/cmd/learn/seal"
)

// TestSealDescriptors: the grader hands the test binary the verdict pipe
// and the nonce pipe as its ExtraFiles, descriptors 3 and 4, where package
// seal looks for them.
func TestSealDescriptors(t *testing.T) {
	if seal.VerdictFD != 3 || seal.NonceFD != 4 {
		t.Errorf("seal reads descriptors %d and %d, the grader gives 3 and 4", seal.VerdictFD, seal.NonceFD)
	}
}

// TestReadVerdicts: only lines that carry the nonce are verdicts; a test
// given two verdicts, or a line the seal does not write, voids them all.
func TestReadVerdicts(t *testing.T) {
	const nonce = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, in   string
		want       map[string]string
		ended      bool
		brokenWith string
	}{
		{name: "sealed", in: nonce + " pass TestA\n" + nonce + " fail TestB\n" + nonce + " skip TestC\n" + nonce + " end 1\n",
			want: map[string]string{"TestA": "pass", "TestB": "fail", "TestC": "skip"}, ended: true},
		{name: "forged-without-the-nonce", in: "pass TestB\n--- PASS: TestB (0.00s)\n\x16--- PASS: TestB\n" + nonce + "x pass TestB\n" + nonce + " fail TestB\n",
			want: map[string]string{"TestB": "fail"}},
		{name: "stopped-before-the-end", in: nonce + " pass TestA\n", want: map[string]string{"TestA": "pass"}},
		{name: "two-verdicts", in: nonce + " fail TestA\n" + nonce + " pass TestA\n", brokenWith: "two verdicts for TestA"},
		{name: "unknown-line", in: nonce + " passed TestA\n", brokenWith: "a verdict line the seal does not write"},
		{name: "another-go-release", in: nonce + " broken testing.M has no field tests\n", brokenWith: "testing.M has no field tests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen, ended, broken := readVerdicts([]byte(tt.in), nonce)
			if broken != tt.brokenWith {
				t.Fatalf("broken = %q, want %q", broken, tt.brokenWith)
			}
			if broken != "" {
				return
			}
			if ended != tt.ended || len(seen) != len(tt.want) {
				t.Errorf("readVerdicts = %v, ended %v; want %v, ended %v", seen, ended, tt.want, tt.ended)
			}
			for k, v := range tt.want {
				if seen[k] != v {
					t.Errorf("verdict of %s = %q, want %q", k, seen[k], v)
				}
			}
		})
	}
}
