# expect.sh is sourced by a chapter's lab/solve.sh. It ties the expected
# output a lab step shows in the chapter's README to a real run of the
# reference solution:
#
#	expect NAME CMD...
#
# runs CMD, prints what it printed, and compares that with the chapter's
# lab/expected/NAME.txt, the file the README quotes as the step's expected
# output (<!-- quote lab/expected/NAME.txt -->), so the two cannot drift.
# What a run cannot repeat is normalized on both sides before they are
# compared: a pod's template hash and random suffix (ledger-5d8f7c9b4-x2x9q
# reads ledger-<hash>), and runs of spaces (kubectl pads its columns to the
# longest value). A step's commands choose columns that do not move
# (-o custom-columns, not AGE).
#
# OPSLAB_EXPECT says what to do with the comparison:
#	(unset)  print only, as a learner's make solve-chapter-N does
#	check    fail on a difference, printing it (make test)
#	update   write lab/expected/NAME.txt from this run
#
# The caller sets $lab to its lab directory.

# expect_normalize reads output and writes it the way it is compared.
expect_normalize() {
	sed -E -e 's/-[a-z0-9]{8,10}-[a-z0-9]{5}\b/-<hash>/g' -e 's/ +/ /g' -e 's/ +$//'
}

expect() {
	local name=$1 out want status=0
	shift
	out=$("$@" 2>&1) || status=$?
	printf '%s\n' "$out"
	[ $status -eq 0 ] || { echo "expect: $name: $* exited $status" >&2; return $status; }
	want=$lab/expected/$name.txt
	case "${OPSLAB_EXPECT:-}" in
	"") ;;
	update)
		mkdir -p "$lab/expected"
		printf '%s\n' "$out" >"$want"
		;;
	check)
		[ -f "$want" ] || { echo "expect: $name: no expected output ${want#$OPSLAB_ROOT/}; run the solution with OPSLAB_EXPECT=update and commit it" >&2; return 1; }
		if ! diff -u <(expect_normalize <"$want") <(printf '%s\n' "$out" | expect_normalize) >&2; then
			echo "expect: $name: the reference run printed other than ${want#$OPSLAB_ROOT/} (diff above: - the README's expected output, + this run)" >&2
			return 1
		fi
		;;
	*) echo "expect: OPSLAB_EXPECT=$OPSLAB_EXPECT; use check, update, or leave it unset" >&2; return 2 ;;
	esac
}
