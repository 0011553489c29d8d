#!/usr/bin/env bats
# magus-relay's terminal and stdin against the real test engine: a TTY
# only when stdin, stdout and stderr are all terminals, the terminal raw
# while the container runs and restored after, SIGWINCH followed through
# resize; without a terminal, stdin crosses only for a verb that reads
# it.

load lib/common
load lib/engine
load lib/relay

setup_file() { engine_up; }
teardown_file() { engine_down; }
setup() { common_setup; engine_require; relay_ws; }
teardown() { relay_cleanup; common_teardown; }

@test "without a terminal, a verb that does not read stdin gets an empty one" {
	cat >>"$WS/magus.yaml" <<-'EOF'
	  reader:
	    run: ["sh", "-c", "cat; echo after-cat"]
	EOF
	run --separate-stderr relay -- run reader < <(printf 'host line\n')
	assert_success
	assert_output "after-cat"
}

@test "on a terminal: a TTY inside, raw mode while it runs and restored after, SIGWINCH resizes" {
	# The first size reaches the container by a resize after start
	# (podman 4.3 takes no ConsoleSize at create and no resize before
	# start), so the target waits for its terminal to have one.
	cat >>"$WS/magus.yaml" <<-'EOF'
	  tty:
	    run: ["sh", "-c", "[ -t 0 ] && [ -t 1 ] && echo on-a-tty; until stty size 2>/dev/null | grep -qv '^0 0'; do sleep 0.05; done; stty size; echo ready; i=0; until stty size | grep -q '^40 ' || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done; stty size; exit 8"]
	EOF
	cd "$WS"
	run python3 - "$RELAY" "$RELAY_PLATFORM" "$WS" <<-'EOF'
	import fcntl, os, pty, select, signal, struct, sys, termios, time
	relay, plat, ws = sys.argv[1:4]
	master, slave = pty.openpty()
	def size(fd, rows, cols):
	    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
	size(slave, 30, 100)
	before = termios.tcgetattr(slave)
	pid = os.fork()
	if pid == 0:
	    os.setsid()
	    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
	    for fd in (0, 1, 2):
	        os.dup2(slave, fd)
	    os.close(master)
	    os.execv(relay, [relay, "--platform", plat, "--root", ws, "--", "run", "tty"])
	out = b""
	raw_seen = resized = False
	st = None
	deadline = time.time() + 60
	# The slave stays open here (its modes are read after), so the end is
	# the child's exit, not an EOF on the master.
	while time.time() < deadline:
	    r, _, _ = select.select([master], [], [], 0.1)
	    if r:
	        out += os.read(master, 4096)
	    elif st is not None:
	        break
	    if st is None:
	        p, s = os.waitpid(pid, os.WNOHANG)
	        if p:
	            st = s
	    if b"ready" in out and not resized:
	        lflag = termios.tcgetattr(slave)[3]
	        raw_seen = not (lflag & termios.ICANON) and not (lflag & termios.ECHO)
	        size(slave, 40, 120)
	        os.kill(pid, signal.SIGWINCH)
	        resized = True
	if st is None:
	    os.kill(pid, signal.SIGKILL)
	    _, st = os.waitpid(pid, 0)
	after = termios.tcgetattr(slave)
	text = out.decode(errors="replace")
	print("status=%d" % os.waitstatus_to_exitcode(st))
	print("raw-while-running=%s" % raw_seen)
	print("restored=%s" % (before == after))
	for line in text.replace("\r", "").split("\n"):
	    print("out:" + line)
	EOF
	assert_success
	assert_line "status=8"
	assert_line "raw-while-running=True"
	assert_line "restored=True"
	assert_line "out:on-a-tty"
	assert_line "out:30 100"
	assert_line "out:40 120"
}
