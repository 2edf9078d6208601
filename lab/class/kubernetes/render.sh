#!/usr/bin/env bash
# render.sh ROSTER IMAGE DOMAIN prints the manifests of a class on a
# school's Kubernetes cluster: class.yaml, then student.yaml for each name
# of ROSTER (one a line, # comments), whose API server answers at
# NAME.DOMAIN (a DNS name the school points at the student's Service).
#
#   lab/class/kubernetes/render.sh roster.txt registry.school.example/opslab-lab:v1.37.2 lab.school.example | kubectl apply -f -
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: render.sh ROSTER IMAGE DOMAIN" >&2; exit 2; }
here=$(dirname "${BASH_SOURCE[0]}")
roster=$1 image=$2 domain=$3
[ -f "$roster" ] || { echo "render: no roster file $roster; write one student name a line" >&2; exit 1; }
cat "$here/class.yaml"
sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$roster" | while read -r n; do
	if ! [[ $n =~ ^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$ ]]; then
		echo "render: \"$n\" cannot name a lab; use lower-case letters, digits and dashes (at most 40)" >&2
		exit 1
	fi
	echo "---"
	sed -e '/^# /d' -e "s|{{image}}|$image|g; s|{{host}}|$n.$domain|g; s|{{student}}|$n|g" "$here/student.yaml"
done
