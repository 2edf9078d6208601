#!/usr/bin/env bash
# local.sh runs one student's lab pod as a cluster holds it, with the
# course's pinned binaries on this machine in place of the images: the
# container commands of StatefulSet lab and Job lab-setup in NAMESPACE, the
# Secret and ConfigMaps they mount written where the mounts put them (under
# a temporary directory, the paths in the flags moved with them), every
# process in a network namespace of its own, so the pod's loopback ports
# are its own as in a pod. It then checks what an instructor checks on
# first use: every component stays up with its flags, the setup Job's
# kubectl applies the lab, the lab's nodes become Ready, the student's
# kubeconfig acts as the learner at the address its certificate names, a
# pod the student creates is scheduled and run, and the audit log names
# each component as its own user.
#
#   local.sh ADMIN_KUBECONFIG CONTEXT NAMESPACE STUDENT_KUBECONFIG
#
# It does not run the images: their files, users and entrypoints are the
# images' (README.md).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/versions.sh"
export PATH=$LAB_BIN:$PATH
die() { echo "local: $*" >&2; exit 1; }
[ $# -eq 4 ] || die "usage: local.sh ADMIN_KUBECONFIG CONTEXT NAMESPACE STUDENT_KUBECONFIG"
if [ "${1:-}" != --inside ]; then
	command -v unshare >/dev/null && command -v ip >/dev/null || die "needs unshare and ip (util-linux, iproute2)"
	k() { kubectl --kubeconfig "$1" --context "$2" -n "$3" "${@:5}"; }
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	spec='{{range .spec.template.spec.volumes}}V {{.name}} {{if .secret}}secret {{.secret.secretName}}{{range .secret.items}} {{.key}}={{.path}}{{end}}{{else if .configMap}}configMap {{.configMap.name}}{{else}}emptyDir{{end}}{{"\n"}}{{end}}{{range .spec.template.spec.containers}}C {{.name}}{{"\n"}}{{range .command}}A {{.}}{{"\n"}}{{end}}{{range .args}}A {{.}}{{"\n"}}{{end}}{{range .volumeMounts}}M {{.name}} {{.mountPath}} {{or .subPath "-"}}{{"\n"}}{{end}}{{end}}'
	k "$@" get statefulset lab -o go-template="$spec" >"$d/lab.spec"
	k "$@" get job lab-setup -o go-template="$spec" >"$d/setup.spec" ||
		die "no Job lab-setup in $3 (it removes itself 10 minutes after it completes): apply the manifests again"
	# Every key of every Secret and ConfigMap the pods mount, as files.
	for kind in secret configmap; do
		for name in $(k "$@" get "$kind" -o go-template='{{range .items}}{{.metadata.name}} {{end}}'); do
			mkdir -p "$d/data/$kind/$name"
			for key in $(k "$@" get "$kind" "$name" -o go-template='{{range $k, $v := .data}}{{$k}} {{end}}'); do
				if [ $kind = secret ]; then
					k "$@" get secret "$name" -o go-template="{{index .data \"$key\"}}" | base64 -d >"$d/data/$kind/$name/$key"
				else
					k "$@" get configmap "$name" -o go-template="{{index .data \"$key\"}}" >"$d/data/$kind/$name/$key"
				fi
			done
		done
	done
	cp "$4" "$d/student.kubeconfig"
	unshare -rn "$BASH" "${BASH_SOURCE[0]}" --inside "$d" "$3" "$d/student.kubeconfig"
	exit
fi

# Inside the network namespace: d is the directory of the specs and data.
d=$2 ns=$3 student=$4
ip link set lo up
# A pod has an address and a default route; the API server, which serves on
# every address, advertises the address of the default route's interface.
ip link add eth0 type veth peer name eth1
ip addr add 192.0.2.10/24 dev eth0
ip link set eth0 up
ip link set eth1 up
ip route add default via 192.0.2.1 dev eth0
pids=()
cleanup() {
	# A throwaway cluster: no graceful shutdown (the API server's waits
	# for etcd, which may already be gone).
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT

# mount ROOT SPEC CONTAINER: the container's volume mounts under ROOT;
# prints each mount path, longest first.
mounts() {
	local root=$1 spec=$2 c=$3 t v path sub kind src rest item
	awk -v c="$c" '$1 == "C" { on = ($2 == c) } on && $1 == "M"' "$spec" | while read -r t v path sub; do
		read -r kind src rest < <(awk -v v="$v" '$1 == "V" && $2 == v { $1 = ""; $2 = ""; print }' "$spec")
		case $kind in
		secret)
			mkdir -p "$root$path"
			for item in $rest; do cp "$d/data/secret/$src/${item%%=*}" "$root$path/${item#*=}"; done
			chmod 0440 "$root$path"/*
			;;
		configMap)
			if [ "$sub" != - ]; then
				mkdir -p "$(dirname "$root$path")"
				cp "$d/data/configmap/$src/$sub" "$root$path"
			else
				mkdir -p "$root$path"
				cp "$d/data/configmap/$src/"* "$root$path/"
			fi
			;;
		emptyDir)
			mkdir -p "$d/volumes/$v" "$(dirname "$root$path")"
			ln -sfn "$d/volumes/$v" "$root$path"
			;;
		*) die "container $c mounts volume $v of a kind this script does not know ($kind)" ;;
		esac
		echo "$path"
	done | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-
}

# command SPEC CONTAINER ROOT MOUNTS...: the container's command, one
# argument a line, each mounted path moved under ROOT.
command_of() {
	local spec=$1 c=$2 root=$3 a mp
	shift 3
	awk -v c="$c" '$1 == "C" { on = ($2 == c) } on && $1 == "A" { sub(/^A /, ""); print }' "$spec" | while IFS= read -r a; do
		for mp in "$@"; do
			case $a in
			"$mp"*) a=$root$a; break ;;
			*"=$mp"*) a=${a/=$mp/=$root$mp}; break ;;
			esac
		done
		printf '%s\n' "$a"
	done
}

# run SPEC CONTAINER BINARY: starts the container's command with BINARY.
run() {
	local spec=$1 c=$2 root=$d/containers/$2 m args=()
	mkdir -p "$root" "$d/logs"
	mapfile -t m < <(mounts "$root" "$spec" "$c")
	mapfile -t args < <(command_of "$spec" "$c" "$root" "${m[@]}")
	# An image's entrypoint runs args alone; command names the binary.
	[ "${args[0]}" = "$3" ] && args=("${args[@]:1}")
	"$LAB_BIN/$3" "${args[@]}" >"$d/logs/$c.log" 2>&1 &
	pids+=($!)
	procs+=("$c:$!")
}

procs=()
containers=$(awk '$1 == "C" { print $2 }' "$d/lab.spec")
for c in $containers; do
	case $c in
	audit | etcd | kube-apiserver | kube-controller-manager | kube-scheduler | kwok) ;;
	*) die "the lab pod has a container this script does not know: $c" ;;
	esac
done
# In the pod they start together and the kubelet restarts those that give
# up before the API server answers (kwok does after about 15 s); here the
# others start once it answers.
run "$d/lab.spec" etcd etcd
run "$d/lab.spec" kube-apiserver kube-apiserver
admin=(kubectl --kubeconfig "$d/data/secret/lab-pki/admin.kubeconfig" --server https://127.0.0.1:6443 --tls-server-name "lab.$ns.svc")
host=$(sed -n 's|^ *server: https://\(.*\):[0-9]*$|\1|p' "$student" | tr -d '[]')
learner=(kubectl --kubeconfig "$student" --server https://127.0.0.1:6443 --tls-server-name "$host")
fail() {
	echo "local: FAIL: $*" >&2
	for l in "$d"/logs/*.log; do
		echo "--- $(basename "$l")" >&2
		tail -n 5 "$l" >&2
	done
	exit 1
}
# alive fails, naming it, when a component has exited: the kubelet would
# restart it, and a container that keeps exiting is what first use finds.
alive() {
	local p
	for p in "${procs[@]}"; do
		kill -0 "${p#*:}" 2>/dev/null || fail "${p%%:*} exited: $(grep -v '^I' "$d/logs/${p%%:*}.log" | tail -n 2)"
	done
}
deadline=$((SECONDS + 120))
until alive && "${admin[@]}" --request-timeout=3s get --raw /readyz >/dev/null 2>&1; do
	[ $SECONDS -lt $deadline ] || fail "the API server did not become ready within 120 s"
	sleep 1
done
echo "local: the API server of $ns is ready"
for c in kube-controller-manager kube-scheduler kwok; do run "$d/lab.spec" "$c" "$c"; done

# The setup Job's container: kubectl's image runs kubectl with its args.
mapfile -t m < <(mounts "$d/containers/kubectl" "$d/setup.spec" kubectl)
mapfile -t args < <(command_of "$d/setup.spec" kubectl "$d/containers/kubectl" "${m[@]}")
kubectl "${args[@]}" --server https://127.0.0.1:6443 --tls-server-name "lab.$ns.svc" >"$d/logs/setup.log" 2>&1 ||
	fail "the setup Job's kubectl failed: $(tail -n 3 "$d/logs/setup.log")"
want=$(grep -c '^kind: Node$' "$d/data/configmap/lab-setup/nodes.yaml")
ready_query='{range .items[*]}{range .status.conditions[?(@.type=="Ready")]}{.status}{"\n"}{end}{end}'
until alive && [ "$("${admin[@]}" get nodes -o jsonpath="$ready_query" | grep -c '^True$' || true)" -ge "$want" ]; do
	[ $SECONDS -lt $deadline ] || fail "kwok did not make the lab's $want nodes Ready"
	sleep 1
done
echo "local: the setup Job's kubectl applied the learner's role and $want nodes; kwok made them Ready"

who=$("${learner[@]}" auth whoami -o jsonpath='{.status.userInfo.username}') || fail "the student's kubeconfig was refused at $host"
[ "$who" = "$LAB_LEARNER_USER" ] || fail "the student's kubeconfig acts as $who"
until "${admin[@]}" -n default get serviceaccount default >/dev/null 2>&1; do
	[ $SECONDS -lt $deadline ] || fail "the service account controller made no account in namespace default"
	sleep 1
done
"${learner[@]}" -n default run probe --image=registry.k8s.io/pause --restart=Never >/dev/null ||
	fail "the student could not create a pod"
until alive && [ "$("${admin[@]}" -n default get pod probe -o jsonpath='{.status.phase}')" = Running ]; do
	[ $SECONDS -lt $deadline ] || fail "the student's pod was not scheduled and run"
	sleep 1
done
echo "local: the student's kubeconfig acts as $who at $host; their pod runs on node $("${admin[@]}" -n default get pod probe -o jsonpath='{.spec.nodeName}')"

alive
audit=$d/volumes/audit/audit.log
[ -s "$audit" ] || fail "the API server wrote no audit log on the audit volume"
for u in "$LAB_SCHEDULER_USER" "$LAB_MANAGER_USER" "$LAB_KWOK_USER" "$LAB_LEARNER_USER"; do
	grep -q "\"username\":\"$u\"" "$audit" || fail "the audit log names no request of $u"
done
echo "local: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok up on the pod's flags; the audit log names $LAB_SCHEDULER_USER, $LAB_MANAGER_USER, $LAB_KWOK_USER and $LAB_LEARNER_USER"
