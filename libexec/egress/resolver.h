/*
 * resolver.h: name resolution that does not stop the event loop.
 *
 * getaddrinfo() blocks, for as long as the system's resolver takes (with
 * the usual resolv.conf, several seconds for a name server that does not
 * answer).  One blocked connection must not stall every other, so a few
 * threads do nothing but getaddrinfo(): the loop hands them jobs and
 * learns of finished ones through an eventfd it polls with its sockets.
 * A fixed pool, not a thread per connection: jobs wait in a queue when
 * every thread is busy.  (glibc's getaddrinfo_a() would do the same with
 * threads of its own that we could neither bound nor see; a resolver
 * child process would need a protocol for the answers.)
 *
 *	struct resolver *r = resolver_start(4);
 *	... add resolver_fd(r) to the poll set ...
 *	resolver_submit(r, job);
 *	... when resolver_fd(r) is readable:
 *	for (j = resolver_done(r); j; j = next) { next = j->next; ...; rjob_free(j); }
 *	resolver_stop(r);
 */
#ifndef MAGUS_EGRESS_RESOLVER_H
#define MAGUS_EGRESS_RESOLVER_H

#include <netdb.h>

#include "egress.h"

struct rjob {
	struct rjob *next;
	/* Who asked: the loop matches these to a connection still waiting. */
	unsigned slot, gen;
	char host[EG_HOST_MAX + 1];
	unsigned port;
	/* The answer: getaddrinfo's status and list. */
	int status;
	struct addrinfo *res;
};

struct resolver;

/* Start nthreads threads; NULL with errno set when that fails. */
struct resolver *resolver_start(unsigned nthreads);
/* The eventfd that becomes readable when answers are waiting. */
int resolver_fd(const struct resolver *r);
/* Queue a job (the resolver owns it until resolver_done returns it). */
void resolver_submit(struct resolver *r, struct rjob *job);
/* Every answered job, oldest first, as a list the caller now owns. */
struct rjob *resolver_done(struct resolver *r);
void rjob_free(struct rjob *job);
/*
 * Stop the threads and free the resolver.  A thread still inside
 * getaddrinfo() is waited for about a second, then left to end with the
 * process: getaddrinfo() cannot be interrupted safely.
 */
void resolver_stop(struct resolver *r);

#endif /* MAGUS_EGRESS_RESOLVER_H */
