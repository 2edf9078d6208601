# pki.sh is sourced by versions.sh: the lab cluster's certificates, made
# before kwokctl creates the cluster so that each component of the control
# plane authenticates as a user of its own and the audit log names it by
# user, not by the user agent any client can set.
#
# kwokctl (at the pinned release) makes one certificate for everyone (kwok-admin, group
# system:masters): the API server serves with it and the scheduler, the
# controller manager and kwok all act with it (pkg/kwokctl/pki/pki.go,
# "use single cert for all components"). It makes its PKI only when the
# cluster's pki directory is missing (runtime/binary/cluster_setup.go), so
# lab_pki writes that directory first, with the files kwokctl would write
# (ca.crt, ca.key, admin.crt, admin.key) and one certificate and kubeconfig
# per component, signed by the same CA:
#
#   kube-scheduler           system:kube-scheduler (Kubernetes' default RBAC
#                            binds its role to this user, as on kubeadm)
#   kube-controller-manager  system:kube-controller-manager (it asks for its
#                            controllers' tokens under this name; each
#                            controller then acts as its service account)
#   kwok-controller          opslab:kwok, group system:masters (kwok stands
#                            in for every node's kubelet at once)
#
# lab_component_args prints the kwokctl --extra-args that hand each
# component its kubeconfig (a later --kubeconfig wins over kwokctl's own).

# The users the components act as; labcheck/audit holds the same names.
LAB_SCHEDULER_USER=system:kube-scheduler
LAB_MANAGER_USER=system:kube-controller-manager
LAB_KWOK_USER=opslab:kwok
# The learner's user and group (lab/learner.yaml binds the group's role).
LAB_LEARNER_USER=opslab:learner
LAB_LEARNER_GROUP=opslab:learners

# lab_free_port prints a TCP port on 127.0.0.1 that nothing answers on,
# below the kernel's usual range for outgoing connections.
lab_free_port() {
	local p
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 12000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	echo "lab: found no free port for the API server" >&2
	return 1
}

# lab_cert DIR NAME CN [ORG] [SANS]: DIR/NAME.key and DIR/NAME.crt, signed
# by DIR/ca; SANS is a comma-separated subjectAltName list.
lab_cert() {
	local dir=$1 name=$2 cn=$3 org=${4:-} sans=${5:-} subj ext
	subj="/CN=$cn"
	[ -n "$org" ] && subj="$subj/O=$org"
	ext=$dir/$name.ext
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		echo "extendedKeyUsage=serverAuth,clientAuth"
		[ -n "$sans" ] && echo "subjectAltName=$sans"
	} >"$ext"
	if [ "$name" = admin ]; then
		# The API server serves with it and signs service account tokens
		# with its key, as kwokctl's own: RSA, as kwokctl makes it.
		openssl genrsa -out "$dir/$name.key" 2048 2>/dev/null
	else
		openssl ecparam -name prime256v1 -genkey -noout -out "$dir/$name.key" 2>/dev/null
	fi
	openssl req -new -key "$dir/$name.key" -subj "$subj" -out "$dir/$name.csr" 2>/dev/null
	openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
		-set_serial "0x$(openssl rand -hex 12)" -days 3650 -extfile "$ext" -out "$dir/$name.crt" 2>/dev/null
	rm -f "$dir/$name.csr" "$ext"
}

# lab_kubeconfig DIR NAME SERVER: DIR/NAME.kubeconfig, for NAME.crt and
# NAME.key, the data inline.
lab_kubeconfig() {
	local dir=$1 name=$2 server=$3
	cat >"$dir/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: $server
    certificate-authority-data: $(base64 <"$dir/ca.crt" | tr -d '\n')
users:
- name: $name
  user:
    client-certificate-data: $(base64 <"$dir/$name.crt" | tr -d '\n')
    client-key-data: $(base64 <"$dir/$name.key" | tr -d '\n')
contexts:
- name: $name
  context:
    cluster: lab
    user: $name
current-context: $name
EOF
	chmod 600 "$dir/$name.kubeconfig"
}

# lab_pki DIR PORT writes the cluster's PKI in DIR (the cluster's pki
# directory) for an API server on 127.0.0.1:PORT (and at LAB_HOST_SANS, a
# subjectAltName list such as DNS:lab.example,IP:192.0.2.7, when set).
lab_pki() {
	local dir=$1 port=$2 server sans
	command -v openssl >/dev/null || { echo "lab: openssl is needed to make the lab cluster's certificates" >&2; return 1; }
	mkdir -p "$dir"
	chmod 700 "$dir"
	openssl genrsa -out "$dir/ca.key" 2048 2>/dev/null
	openssl req -x509 -new -key "$dir/ca.key" -subj "/CN=kwok-ca" -days 3650 -out "$dir/ca.crt" \
		-config <(printf '[req]\ndistinguished_name=dn\nx509_extensions=ca\n[dn]\n[ca]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature\nsubjectKeyIdentifier=hash\n') 2>/dev/null
	# The admin certificate is also the API server's serving certificate.
	sans="DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:::1"
	# A class's clusters also answer at their host's name and address.
	[ -n "${LAB_HOST_SANS:-}" ] && sans="$sans,$LAB_HOST_SANS"
	lab_cert "$dir" admin kwok-admin system:masters "$sans"
	server=https://127.0.0.1:$port
	lab_cert "$dir" kube-scheduler "$LAB_SCHEDULER_USER"
	lab_kubeconfig "$dir" kube-scheduler "$server"
	lab_cert "$dir" kube-controller-manager "$LAB_MANAGER_USER"
	lab_kubeconfig "$dir" kube-controller-manager "$server"
	lab_cert "$dir" kwok-controller "$LAB_KWOK_USER" system:masters
	lab_kubeconfig "$dir" kwok-controller "$server"
	[ -s "$dir/kwok-controller.kubeconfig" ]
}

# lab_component_args DIR prints the --extra-args that give each component
# its own kubeconfig from DIR, one a line.
lab_component_args() {
	local dir=$1 c
	for c in kube-scheduler kube-controller-manager kwok-controller; do
		echo "--extra-args=$c=kubeconfig=$dir/$c.kubeconfig"
	done
}

# lab_learner_access DIR CONTEXT KUBECONFIG_ARGS...: the learner's context
# and the admin's, in the kubeconfig that kwokctl wrote for cluster CONTEXT
# (kwok-NAME: a cluster, user and context of that name, the admin's
# certificate). CONTEXT becomes the learner's: user CONTEXT-learner, with a
# certificate DIR/learner.crt for opslab:learner in group opslab:learners,
# made here when missing. CONTEXT-admin keeps kwokctl's admin user. It then
# applies lab/learner.yaml as the admin. Running it again changes nothing.
lab_learner_access() {
	local dir=$1 ctx=$2
	shift 2
	if [ ! -s "$dir/learner.crt" ]; then
		lab_cert "$dir" learner "$LAB_LEARNER_USER" "$LAB_LEARNER_GROUP" || return 1
	fi
	kubectl "$@" config set-context "$ctx-admin" --cluster "$ctx" --user "$ctx" >/dev/null &&
		kubectl "$@" config set-credentials "$ctx-learner" --embed-certs \
			--client-certificate "$dir/learner.crt" --client-key "$dir/learner.key" >/dev/null &&
		kubectl "$@" config set-context "$ctx" --cluster "$ctx" --user "$ctx-learner" >/dev/null &&
		kubectl "$@" --context "$ctx-admin" apply -f "$OPSLAB_ROOT/lab/learner.yaml" >/dev/null
}

# lab_learner_forget CONTEXT KUBECONFIG_ARGS...: removes what
# lab_learner_access added to the kubeconfig (kwokctl removes its own).
lab_learner_forget() {
	local ctx=$1
	shift
	kubectl "$@" config delete-context "$ctx-admin" >/dev/null 2>&1 || true
	kubectl "$@" config delete-user "$ctx-learner" >/dev/null 2>&1 || true
}
