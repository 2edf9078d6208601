#!/usr/bin/env bash
# bench-class.sh is make bench-class: how many students a host holds. For
# each class size N of BENCH_SIZES (default "2 5 10") it starts a class of
# N on this machine (lab/scripts/class.sh, at 127.0.0.2, in a directory of
# its own), and measures:
#
#   start     seconds from class.sh up to every cluster ready
#   idle      each cluster's memory (RSS of its processes) and CPU over
#             BENCH_IDLE seconds (default 30) once the class is up
#   busy      one student's cluster while chapter 1's reference solution
#             runs through their kubeconfig: its peak memory, its CPU
#
# then removes the class. It prints a table, and what this machine and a
# 64-core, 256 GiB server would hold by the same figures: at most 85 % of
# the memory with every cluster at its busy peak, and the cores with every
# cluster idle but a quarter of them busy at once. Run it on an idle
# machine: other work inflates the start times and the CPU.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/versions.sh"
export PATH=$LAB_BIN:$PATH
cd "$OPSLAB_ROOT"
sizes=${BENCH_SIZES:-2 5 10}
idle_s=${BENCH_IDLE:-30}
work=$(mktemp -d)
export CLASS_DIR=$work/class
tck=$(getconf CLK_TCK)
cleanup() { lab/scripts/class.sh down >/dev/null 2>&1 || true; pkill -f -- "$work/" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

pids() { pgrep -f -- "$CLASS_DIR/kwok/clusters/class-$1/" || true; }
# ticks NAME: CPU ticks of NAME's cluster so far.
ticks() {
	local p t=0 st
	for p in $(pids "$1"); do
		read -ra st <"/proc/$p/stat" 2>/dev/null || continue
		t=$((t + st[13] + st[14]))
	done
	echo $t
}
# rss NAME: NAME's cluster's memory in MB.
rss() {
	local p m=0
	for p in $(pids "$1"); do m=$((m + $(ps -o rss= -p "$p" 2>/dev/null || echo 0))); done
	echo $((m / 1024))
}

rows=()
for n in $sizes; do
	names=$(seq -f 's%g' 1 "$n")
	echo "$names" >"$work/roster.txt"
	echo "bench-class: a class of $n"
	t0=$SECONDS
	lab/scripts/class.sh up "$work/roster.txt" 127.0.0.2 | sed 's/^/  /'
	start=$((SECONDS - t0))
	declare -A before=()
	for s in $names; do before[$s]=$(ticks "$s"); done
	sleep "$idle_s"
	mem=0 cpu=0
	for s in $names; do
		mem=$((mem + $(rss "$s")))
		cpu=$((cpu + $(ticks "$s") - before[$s]))
	done
	idle_mb=$((mem / n))
	# CPU per cluster, in thousandths of a core.
	idle_mcpu=$((cpu * 1000 / tck / idle_s / n))
	echo "bench-class: chapter 1's solution as s1, through their kubeconfig"
	b0=$(ticks s1) peak=0 t1=$(date +%s%3N)
	KUBECONFIG=$CLASS_DIR/students/s1.kubeconfig OPSLAB_CONTEXT=kwok-opslab OPSLAB_ADMIN_CONTEXT=kwok-opslab \
		chapters/01-pdb/lab/solve.sh >"$work/solve.log" 2>&1 &
	solver=$!
	while kill -0 "$solver" 2>/dev/null; do
		m=$(rss s1)
		[ "$m" -gt "$peak" ] && peak=$m
		sleep 1
	done
	wait "$solver" || { cat "$work/solve.log"; echo "bench-class: the solution failed" >&2; exit 1; }
	busy_ms=$(($(date +%s%3N) - t1))
	busy_mcpu=$((($(ticks s1) - b0) * 1000 * 1000 / tck / busy_ms))
	rows+=("$n $start $idle_mb $idle_mcpu $peak $busy_mcpu $((busy_ms / 1000))")
	lab/scripts/class.sh down >/dev/null
done

cores=$(nproc)
# cores_of M prints M thousandths of a core as cores: 0.05.
cores_of() { awk -v m="$1" 'BEGIN { printf "%.2f", m / 1000 }'; }
mem_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
printf '\nclass capacity on this machine (%d cores, %d MB), load average now %s\n' "$cores" "$mem_mb" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %10s %12s %14s %12s %14s %10s\n' STUDENTS "START (s)" "IDLE MB/EACH" "IDLE CPU/EACH" "BUSY MB" "BUSY CPU" "SOLVE (s)"
for r in "${rows[@]}"; do
	read -r n start imb imc bmb bmc bs <<<"$r"
	printf '%8d %10d %12d %13sc %12d %13sc %10d\n' "$n" "$start" "$imb" "$(cores_of "$imc")" "$bmb" "$(cores_of "$bmc")" "$bs"
done
# The capacity, from the largest class measured.
read -r n start imb imc bmb bmc bs <<<"${rows[-1]}"
fits() {
	local cores=$1 mb=$2 by_mem by_cpu
	by_mem=$((mb * 85 / 100 / bmb))
	# Every cluster idle, a quarter of them busy at once.
	by_cpu=$((cores * 1000 * 4 / (4 * imc + bmc)))
	echo "$(( by_mem < by_cpu ? by_mem : by_cpu )) (memory allows $by_mem, CPU $by_cpu)"
}
printf '\nby these figures, with every cluster at its busy memory and a quarter of them busy at once:\n'
printf '  this machine (%d cores, %d GB): %s students\n' "$cores" $((mem_mb / 1024)) "$(fits "$cores" "$mem_mb")"
printf '  a server of 64 cores, 256 GB: %s students\n' "$(fits 64 $((256 * 1024)))"
printf '  starting a class takes about %d s a student, one after another\n' $((start / n))
