/*
 * resolver.c: a small pool of getaddrinfo() threads (see resolver.h).
 */
#include "compat.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "resolver.h"
#include "xalloc.h"

struct resolver {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct rjob *todo, **todo_tail;
	struct rjob *done, **done_tail;
	bool stopping;
	unsigned nthreads, busy;
	pthread_t *threads;
	int evfd;
};

static void *
worker(void *arg)
{
	struct resolver *r = arg;
	struct addrinfo hints;
	struct rjob *j;
	char port[8];
	uint64_t one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	hints.ai_flags = AI_NUMERICSERV;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->todo && !r->stopping)
			pthread_cond_wait(&r->wake, &r->lock);
		if (r->stopping)
			break;
		j = r->todo;
		r->todo = j->next;
		if (!r->todo)
			r->todo_tail = &r->todo;
		r->busy++;
		pthread_mutex_unlock(&r->lock);

		snprintf(port, sizeof(port), "%u", j->port);
		j->res = NULL;
		j->status = getaddrinfo(j->host, port, &hints, &j->res);

		pthread_mutex_lock(&r->lock);
		r->busy--;
		j->next = NULL;
		*r->done_tail = j;
		r->done_tail = &j->next;
		/*
		 * An eventfd counter cannot overflow here (it would take 2^64
		 * answers), and the fd is non-blocking: nothing to wait for.
		 */
		if (write(r->evfd, &one, sizeof(one)) != sizeof(one))
			abort();
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct resolver *
resolver_start(unsigned nthreads)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	sigset_t all, old;
	unsigned i;
	int err;

	r->todo_tail = &r->todo;
	r->done_tail = &r->done;
	r->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->evfd < 0) {
		free(r);
		return NULL;
	}
	if ((err = pthread_mutex_init(&r->lock, NULL)) != 0 ||
	    (err = pthread_cond_init(&r->wake, NULL)) != 0) {
		close(r->evfd);
		free(r);
		errno = err;
		return NULL;
	}
	r->threads = xcalloc(nthreads, sizeof(*r->threads));
	/* Signals belong to the loop's signalfd, never to a worker. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&r->threads[i], NULL, worker, r);
		if (err)
			break;
		r->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		resolver_stop(r);
		errno = err;
		return NULL;
	}
	return r;
}

int
resolver_fd(const struct resolver *r)
{
	return r->evfd;
}

void
resolver_submit(struct resolver *r, struct rjob *job)
{
	job->next = NULL;
	pthread_mutex_lock(&r->lock);
	*r->todo_tail = job;
	r->todo_tail = &job->next;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

struct rjob *
resolver_done(struct resolver *r)
{
	struct rjob *list;
	uint64_t n;

	/* EAGAIN (nothing counted yet) is fine: the list says what is done. */
	if (read(r->evfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		abort();
	pthread_mutex_lock(&r->lock);
	list = r->done;
	r->done = NULL;
	r->done_tail = &r->done;
	pthread_mutex_unlock(&r->lock);
	return list;
}

void
rjob_free(struct rjob *job)
{
	if (job->res)
		freeaddrinfo(job->res);
	free(job);
}

static void
free_list(struct rjob *j)
{
	struct rjob *next;

	for (; j; j = next) {
		next = j->next;
		rjob_free(j);
	}
}

void
resolver_stop(struct resolver *r)
{
	struct timespec until;
	unsigned i;
	bool stuck = false;

	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_broadcast(&r->wake);
	pthread_mutex_unlock(&r->lock);

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	for (i = 0; i < r->nthreads; i++)
		if (pthread_timedjoin_np(r->threads[i], NULL, &until) != 0)
			stuck = true;
	if (stuck)
		return;	/* a worker still holds r; the process ends anyway */
	free_list(r->todo);
	free_list(r->done);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	close(r->evfd);
	free(r->threads);
	free(r);
}
