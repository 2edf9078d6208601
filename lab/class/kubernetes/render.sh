#!/usr/bin/env bash
# render.sh prints the manifests of a class on a school's Kubernetes cluster
# (student.yaml for each name of a roster, one a line, # comments) and
# writes what the instructor keeps and hands out to OUT:
#
#   OUT/students/NAME.kubeconfig  hand it to NAME: context kwok-opslab, the
#                                 learner (opslab:learner) at the student's
#                                 address, the lab's CA
#   OUT/admin.kubeconfig          the instructor's: context
#                                 kwok-class-NAME-admin for each student
#   OUT/roster.txt                for labcheck grade --roster: NAME, the
#                                 admin's kubeconfig and context, and
#                                 OUT/audit/NAME.log, where the instructor
#                                 copies the student's audit log to grade
#   OUT/pki/NAME/                 the lab's CA and certificates (lab/scripts/pki.sh),
#                                 kept so that rendering again changes nothing
#
#   render.sh [--nodeport FIRST] [--pvc SIZE[:CLASS]] ROSTER HOST OUT
#
# By default each student's API server is Service lab of type LoadBalancer
# in namespace opslab-NAME, reached at NAME.HOST:6443 (a DNS name the
# school points at the Service's address). --nodeport FIRST makes them
# NodePort Services instead, the first student's on port FIRST, the next
# on FIRST+1 and so on, reached at HOST:PORT (HOST: a node's name or
# address). etcd's data and the audit log are on emptyDir volumes (lost
# with the pod); --pvc SIZE gives each a PersistentVolumeClaim of SIZE
# (of storage class CLASS, or the cluster's default).
#
#   lab/class/kubernetes/render.sh roster.txt lab.school.example class-out | kubectl apply -f -
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../scripts/versions.sh"
die() { echo "render: $*" >&2; exit 1; }
usage="usage: render.sh [--nodeport FIRST] [--pvc SIZE[:CLASS]] ROSTER HOST OUT"
nodeport='' pvc='' pvc_class=''
while [ $# -gt 0 ]; do
	case $1 in
	--nodeport)
		[[ ${2:-} =~ ^[0-9]+$ ]] || die "--nodeport needs the first port, a number (30000-32767 by default); $usage"
		nodeport=$2
		shift 2
		;;
	--pvc)
		[[ ${2:-} =~ ^[0-9]+(Mi|Gi|Ti)(:[a-z0-9.-]+)?$ ]] || die "--pvc needs a size such as 2Gi, or 2Gi:CLASS; $usage"
		pvc=${2%%:*}
		[[ $2 == *:* ]] && pvc_class=${2#*:}
		shift 2
		;;
	-*) die "unknown option $1; $usage" ;;
	*) break ;;
	esac
done
[ $# -eq 3 ] || die "$usage"
roster=$1 host=$2 out=$3
[ -f "$roster" ] || die "no roster file $roster; write one student name a line"
[[ $host =~ ^[A-Za-z0-9.:-]+$ ]] || die "\"$host\" is no host name or address"
names=()
line=0
while IFS= read -r n || [ -n "$n" ]; do
	line=$((line + 1))
	n=${n%%#*}
	n=$(echo "$n" | tr -d '[:space:]')
	[ -n "$n" ] || continue
	[[ $n =~ ^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$ ]] ||
		die "$roster line $line: \"$n\" cannot name a lab; use lower-case letters, digits and dashes (at most 40)"
	case " ${names[*]} " in *" $n "*) die "$roster line $line: \"$n\" is in the roster twice" ;; esac
	names+=("$n")
done <"$roster"
[ ${#names[@]} -gt 0 ] || die "roster $roster names no student"
if [ -n "$nodeport" ] && [ $((nodeport + ${#names[@]} - 1)) -gt 32767 ]; then
	die "--nodeport $nodeport leaves no port for every one of ${#names[@]} students below 32767"
fi
mkdir -p "$out/students" "$out/pki" "$out/audit"
chmod 700 "$out" "$out/pki"
mode=${nodeport:+nodeport $nodeport}
mode="$host ${mode:-loadbalancer}"
if [ -f "$out/host" ] && [ "$(cat "$out/host")" != "$mode" ]; then
	die "$out was rendered for $(cat "$out/host"); its certificates name that address: use another OUT"
fi
echo "$mode" >"$out/host"

# The public images of the pinned releases (labcheck/version/pins.env).
# registry.k8s.io tags etcd's image with the release and an image
# revision (kubeadm's DefaultEtcdVersion names the same tag).
kube_image_prefix=registry.k8s.io/
etcd_image=registry.k8s.io/etcd:${ETCD_VERSION#v}-0
kwok_image=registry.k8s.io/kwok/kwok:$KWOK_VERSION
service_type=LoadBalancer
[ -z "$nodeport" ] || service_type=NodePort

# yaml_file KEY FILE: FILE as a block scalar under key KEY of a map at
# indent 2.
yaml_file() {
	echo "  $1: |"
	sed 's/^/    /; s/^    $//' "$2"
}
# The kwok controller's configuration: the Stage documents of lab/kwokctl.yaml.
stages=$(mktemp) gen=$(mktemp)
trap 'rm -f "$stages" "$gen"' EXIT
awk '
	function flush() { if (stage) printf "%s%s", (n++ ? "---\n" : ""), doc; doc = ""; stage = 0 }
	/^---$/ { flush(); next }
	{ doc = doc $0 "\n" }
	/^kind: Stage$/ { stage = 1 }
	END { flush() }
' "$OPSLAB_ROOT/lab/kwokctl.yaml" >"$stages"
[ "$(grep -c '^kind: Stage$' "$stages")" -gt 0 ] || die "found no Stage in lab/kwokctl.yaml"

b64() { base64 <"$1" | tr -d '\n'; }
# kubeconfig CLUSTER USER SERVER CA CERT KEY: a kubeconfig of one context,
# CLUSTER, for user USER.
kubeconfig() {
	cat <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $1
  cluster:
    server: $3
    certificate-authority-data: $(b64 "$4")
users:
- name: $2
  user:
    client-certificate-data: $(b64 "$5")
    client-key-data: $(b64 "$6")
contexts:
- name: $1
  context:
    cluster: $1
    user: $2
current-context: $1
EOF
}

: >"$out/roster.tmp"
clusters='' users='' contexts=''
i=0
first=1
for n in "${names[@]}"; do
	ns=opslab-$n
	if [ -n "$nodeport" ]; then
		addr=$host port=$((nodeport + i))
	else
		addr=$n.$host port=6443
	fi
	i=$((i + 1))
	case $addr in
	*:*) server="https://[$addr]:$port" sans="IP:$addr" ;;
	*[!0-9.]*) server="https://$addr:$port" sans="DNS:$addr" ;;
	*) server="https://$addr:$port" sans="IP:$addr" ;;
	esac
	pki=$out/pki/$n
	if [ ! -s "$pki/learner.crt" ]; then
		rm -rf "$pki"
		# The components reach the API server at the pod's loopback
		# address; the setup Job at the Service's name.
		LAB_HOST_SANS="$sans,DNS:lab.$ns.svc,DNS:lab.$ns.svc.cluster.local" lab_pki "$pki" 6443 ||
			die "could not make $n's certificates in $pki"
		lab_cert "$pki" learner "$LAB_LEARNER_USER" "$LAB_LEARNER_GROUP"
		lab_kubeconfig "$pki" admin "https://lab.$ns.svc:6443"
	fi
	kubeconfig kwok-opslab opslab-learner "$server" "$pki/ca.crt" "$pki/learner.crt" "$pki/learner.key" >"$out/students/$n.kubeconfig"
	chmod 600 "$out/students/$n.kubeconfig"
	a=kwok-class-$n-admin
	clusters+="- name: $a"$'\n'"  cluster:"$'\n'"    server: $server"$'\n'"    certificate-authority-data: $(b64 "$pki/ca.crt")"$'\n'
	users+="- name: $a"$'\n'"  user:"$'\n'"    client-certificate-data: $(b64 "$pki/admin.crt")"$'\n'"    client-key-data: $(b64 "$pki/admin.key")"$'\n'
	contexts+="- name: $a"$'\n'"  context:"$'\n'"    cluster: $a"$'\n'"    user: $a"$'\n'
	echo "$n admin.kubeconfig kwok-class-$n-admin audit/$n.log" >>"$out/roster.tmp"

	[ $first = 1 ] || echo "---"
	first=0
	if [ -n "$pvc" ]; then
		volumes="  volumeClaimTemplates:"
		for v in etcd-data audit; do
			volumes+=$'\n'"  - metadata:"$'\n'"      name: $v"$'\n'"    spec:"$'\n'"      accessModes: [ReadWriteOnce]"
			[ -n "$pvc_class" ] && volumes+=$'\n'"      storageClassName: $pvc_class"
			volumes+=$'\n'"      resources:"$'\n'"        requests:"$'\n'"          storage: $pvc"
		done
	else
		volumes="      - name: etcd-data"$'\n'"        emptyDir: {}"$'\n'"      - name: audit"$'\n'"        emptyDir: {}"
	fi
	{
		cat <<EOF
# The lab's certificates and the components' kubeconfigs (render.sh, from
# lab/scripts/pki.sh). The CA's key stays with the instructor.
apiVersion: v1
kind: Secret
metadata:
  name: lab-pki
  namespace: $ns
type: Opaque
data:
EOF
		for f in ca.crt admin.crt admin.key kube-scheduler.kubeconfig kube-controller-manager.kubeconfig kwok-controller.kubeconfig admin.kubeconfig; do
			echo "  $f: $(b64 "$pki/$f")"
		done
		cat <<EOF
---
# The audit policy (lab/audit-policy.yaml) and kwok's stages (the Stage
# documents of lab/kwokctl.yaml), as make lab-up gives them.
apiVersion: v1
kind: ConfigMap
metadata:
  name: lab-config
  namespace: $ns
data:
EOF
		yaml_file audit-policy.yaml "$OPSLAB_ROOT/lab/audit-policy.yaml"
		yaml_file kwok.yaml "$stages"
		cat <<EOF
---
# What the setup Job applies: the learner's role and the lab's nodes.
apiVersion: v1
kind: ConfigMap
metadata:
  name: lab-setup
  namespace: $ns
data:
EOF
		yaml_file learner.yaml "$OPSLAB_ROOT/lab/learner.yaml"
		yaml_file nodes.yaml "$OPSLAB_ROOT/lab/nodes.yaml"
		echo "---"
	} >"$gen"
	node_port=
	[ -n "$nodeport" ] && node_port="    nodePort: $port"
	awk -v volumes="$volumes" -v node_port="$node_port" -v gen="$gen" '
		/^# / && !started { next }
		{ started = 1 }
		/^ *# \{\{volumes\}\}$/ { print volumes; next }
		/^ *# \{\{node_port\}\}$/ { if (node_port != "") print node_port; next }
		/^# \{\{generated\}\}$/ { while ((getline l < gen) > 0) print l; close(gen); next }
		{ print }
	' "$here/student.yaml" | sed -e "s|{{student}}|$n|g; s|{{student_server}}|$server|g" \
		-e "s|{{kube_image_prefix}}|$kube_image_prefix|g; s|{{kube_version}}|$KUBE_VERSION|g" \
		-e "s|{{etcd_image}}|$etcd_image|g; s|{{kwok_image}}|$kwok_image|g" \
		-e "s|{{service_type}}|$service_type|"
done
printf 'apiVersion: v1\nkind: Config\nclusters:\n%susers:\n%scontexts:\n%s' "$clusters" "$users" "$contexts" >"$out/admin.tmp"
chmod 600 "$out/admin.tmp"
mv "$out/admin.tmp" "$out/admin.kubeconfig"
mv "$out/roster.tmp" "$out/roster.txt"
echo "render: ${#names[@]} students; kubeconfigs in $out/students/, the instructor's in $out/admin.kubeconfig" >&2
