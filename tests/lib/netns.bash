# Network namespaces and veth pairs for tests (root only), always torn
# down: every namespace and link a helper makes is registered, and
# netns_teardown (call it from teardown) removes them, killing first the
# processes still inside a namespace this file created.
#
#	netns_add NAME			a namespace with loopback up
#	netns_veth NS ADDR/LEN ADDR/LEN	a pair: root side, NS side
#	netns_teardown
#
# Names carry the test's pid and a random number, so suites running in
# parallel (make -j) never meet.

NETNS_CREATED=()
NETNS_LINKS=()

# True when this process may create namespaces and veths.
netns_available() {
	local probe="mgsprobe$$"
	[ "$(id -u)" = 0 ] || return 1
	command -v ip >/dev/null || return 1
	ip netns add "$probe" 2>/dev/null || return 1
	ip netns del "$probe"
}

# A unique short id (veth names are limited to 15 bytes).
netns_id() {
	printf '%x%04x' "$(($$ % 4096))" "$RANDOM"
}

netns_add() {
	ip netns add "$1" || return 1
	NETNS_CREATED+=("$1")
	ip -n "$1" link set lo up
}

# netns_veth NS ROOTADDR/LEN NSADDR/LEN: sets NETNS_VETH to the root side.
netns_veth() {
	local ns=$1 here=$2 there=$3 id
	id=$(netns_id)
	NETNS_VETH="mge${id}a"
	ip link add "$NETNS_VETH" type veth peer name "mge${id}b" || return 1
	NETNS_LINKS+=("$NETNS_VETH")
	ip link set "mge${id}b" netns "$ns" &&
		ip addr add "$here" dev "$NETNS_VETH" &&
		ip link set "$NETNS_VETH" up &&
		ip -n "$ns" addr add "$there" dev "mge${id}b" &&
		ip -n "$ns" link set "mge${id}b" up
}

netns_teardown() {
	local ns link pid
	for ns in "${NETNS_CREATED[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null || true
		done
	done
	for link in "${NETNS_LINKS[@]}"; do
		ip link del "$link" 2>/dev/null || true
	done
	for ns in "${NETNS_CREATED[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	NETNS_CREATED=()
	NETNS_LINKS=()
}
