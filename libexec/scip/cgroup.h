/*
 * cgroup.h: what the kernel counted for a running container: its peak
 * memory, its CPU time and its OOM kills, read from the container's own
 * cgroup on this host while the container lives.
 *
 * An engine removes the container's cgroup as soon as its process exits
 * (podman's cleanup does, before the wait even answers), so the files
 * are opened while the container runs and read again on a timer and
 * once more when its output ends: the peak counter only grows, so the
 * last read before the cgroup goes holds the run's peak.
 *
 * The cgroup is found through /proc/PID/cgroup of the container's init
 * (the engine's State.Pid) and the cgroup mounts in /proc/self/mountinfo,
 * and is used only when its path names the container's full id: an
 * engine in a VM reports a pid that means nothing here, and numbers read
 * from another process's cgroup would be worse than none.
 *
 *	cgroup v1: memory.max_usage_in_bytes, memory.oom_control (oom_kill),
 *	           cpuacct.usage
 *	cgroup v2: memory.peak (else the largest memory.current seen),
 *	           memory.events (oom_kill), cpu.stat (usage_usec)
 */
#ifndef MAGUS_SCIP_CGROUP_H
#define MAGUS_SCIP_CGROUP_H

#include <stdbool.h>

struct cg_sampler {
	int mem_fd;		/* peak (v1, v2 memory.peak) or current */
	bool mem_is_peak;
	int oom_fd;
	int cpu_fd;
	bool v2;
	/* the largest values read so far; -1 when never read */
	long long peak_bytes;
	long long cpu_usec;
	long long oom_kills;
	char path[512];		/* the memory cgroup, for -v */
};

void cg_init(struct cg_sampler *s);
/*
 * Find and open the cgroup of `pid` if its path holds `container_id`.
 * Returns 0, or -1 when there is none to read here (the sampler then
 * reads nothing, and that is not an error).
 */
int cg_open(struct cg_sampler *s, long pid, const char *container_id);
bool cg_active(const struct cg_sampler *s);
/* Read every counter again; a cgroup that is gone closes the sampler. */
void cg_sample(struct cg_sampler *s);
void cg_close(struct cg_sampler *s);

#endif /* MAGUS_SCIP_CGROUP_H */
