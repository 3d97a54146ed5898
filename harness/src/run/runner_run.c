/* runner_run: a batch run: staged into the arena piece by piece, sent to the worker command by
 * command, its messages read, and the cases a fault or a death may not be owed to run again. */
#include "run/runner_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "run/wire.h"

/* ---------------------------------------------------------------- running */

/* Is the worker still there? Collects it if it died while idle. */
int qc_runner_worker_alive(qc_runner *r)
{
	if (r->pid <= 0)
		return 0;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0)
		return 1;
	qc_runner_trace(r, "worker %ld died while idle", (long)r->pid);
	qc_runner_end_worker(r, 1);
	return 0;
}

/* What came from the worker. */
enum {
	MSG_TIMEOUT = 0,
	MSG_ANSWER,
	MSG_FAULT,
	MSG_GONE,
	MSG_GARBLED,
	MSG_BROKEN,
	MSG_LINK,          /* the relay's stream ended without the remote side's word */
	MSG_DEVICE_TIMEOUT /* the device's keeper killed the worker at the timeout */
};

typedef union worker_msg {
	uint32_t magic;
	qc_answer ans;
	qc_fault fault;
	unsigned char
	        bytes[sizeof(qc_answer) > sizeof(qc_fault) ? sizeof(qc_answer) : sizeof(qc_fault)];
} worker_msg;

/* remote: the worker is a relay, whose channel carries no plugin's bytes (a local worker's
 * QC_MSG_BROKEN is the plugin's forgery: garbled) */
static int classify(const worker_msg *m, ssize_t n, int remote)
{
	if (n == (ssize_t)sizeof m->ans && (m->magic == QC_MSG_ANSWER || m->magic == QC_MSG_DONE))
		return MSG_ANSWER;
	if (n == (ssize_t)sizeof m->fault && m->magic == QC_MSG_FAULT)
		return MSG_FAULT;
	if (n == (ssize_t)sizeof m->ans && m->magic == QC_MSG_BROKEN && remote)
		return MSG_BROKEN;
	if (n == (ssize_t)sizeof m->ans && m->magic == QC_MSG_LINK && remote)
		return MSG_LINK;
	if (n == (ssize_t)sizeof m->ans && m->magic == QC_MSG_TIMEOUT && remote)
		return MSG_DEVICE_TIMEOUT;
	return n == 0 ? MSG_GONE : MSG_GARBLED;
}

/*
 * The next message of the worker within timeout_s (<= 0: no limit). The worker's death is
 * seen from the process itself (its pidfd), not only from the channel: a child the plugin
 * forked may hold the channel open. Messages sent before it died are read first.
 */
static int next_msg(qc_runner *r, double timeout_s, worker_msg *m)
{
	/* a packet that is there already needs no poll (answers come in runs) */
	ssize_t n0;
	do
		n0 = recv(r->fd, m, sizeof *m, MSG_DONTWAIT);
	while (n0 < 0 && errno == EINTR);
	if (n0 > 0)
		return classify(m, n0, r->remote != NULL);
	double deadline = timeout_s > 0 ? qc_now_s() + timeout_s : 0;
	for (;;) {
		if (atomic_load(&r->cancelled))
			return MSG_GONE;
		int ms = r->pidfd >= 0 ? -1 : 200; /* without a pidfd: look at the process */
		if (timeout_s > 0) {
			double left = deadline - qc_now_s();
			if (left <= 0)
				return MSG_TIMEOUT;
			int lms = left * 1000.0 >= INT_MAX - 1 ? INT_MAX : (int)(left * 1000.0) + 1;
			ms = ms < 0 || lms < ms ? lms : ms;
		}
		struct pollfd p[2] = {{.fd = r->fd, .events = POLLIN},
		                      {.fd = r->pidfd, .events = POLLIN}};
		int rc = poll(p, r->pidfd >= 0 ? 2 : 1, ms);
		if (rc < 0 && errno != EINTR)
			return MSG_GONE;
		int dead = 0;
		if (rc > 0 && (p[1].revents & POLLIN))
			dead = 1;
		else if (rc == 0 && r->pidfd < 0) {
			siginfo_t si;
			memset(&si, 0, sizeof si);
			dead = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
			       si.si_pid != 0;
		}
		if ((rc > 0 && p[0].revents) || dead) {
			ssize_t n;
			do
				n = recv(r->fd, m, sizeof *m, MSG_DONTWAIT);
			while (n < 0 && errno == EINTR);
			if (n > 0 || (n == 0 && !dead))
				return classify(m, n, r->remote != NULL);
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				return MSG_GONE;
			if (dead)
				return MSG_GONE;
		}
	}
}

/* Puts a case's outputs and their pattern bytes back as staged (before running it again). */
static void reset_outputs(qc_runner *r, const staged_case *sc, const qcf_op_call *orig)
{
	const qc_case_desc *d = &sc->d;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		unsigned char *reg = r->arena + d->rw_off[k];
		size_t head = d->out_off[k] - d->rw_off[k];
		qc_runner_fill_pattern(reg, d->rw_len[k]);
		if (qc_runner_out_tensor(orig, k)->data)
			memcpy(reg + head, qc_runner_out_tensor(orig, k)->data, d->out_len[k]);
		else
			qc_runner_default_poison(reg + head, d->out_len[k]);
		qc_runner_fill_pattern(reg + head + d->out_len[k],
		                       d->rw_len[k] - head - d->out_len[k]);
	}
}

/* Sends the cases list[0..n) as one command. */
static int send_cases(qc_runner *r, const size_t *list, size_t n)
{
	struct {
		qc_command c;
		qc_case_desc d[QC_WIRE_CHUNK];
	} cmd;
	memset(&cmd.c, 0, sizeof cmd.c);
	cmd.c.count = (uint32_t)n;
	cmd.c.settle_ms = r->probation ? QC_PROBATION_SETTLE_MS : QC_SETTLE_MS;
	cmd.c.flags = r->probation || r->strict ? 0 : QC_CMD_DEFER_CLOSE;
	for (size_t i = 0; i < n; i++)
		cmd.d[i] = r->cases[list[i]].d;
	return qc_send_full(r->fd, &cmd, sizeof cmd.c + n * sizeof cmd.d[0]);
}

/* The worker cannot be (re)started: every case not done gets the reason. */
static void no_worker(qc_runner *r, size_t m, qc_exec_result *results, const char *why)
{
	for (size_t k = 0; k < m; k++)
		if (!r->cases[k].done) {
			qc_runner_set_result(&results[r->cases[k].index], QC_EXEC_ERROR,
			                     "no worker: %s", why);
			r->cases[k].done = 1;
		}
}

#define MAX_RERUNS 2 /* an innocent case run again after another case's fault */

/* A command that left slots open went wrong (something changed in an open slot, a check
 * failed, the worker died): its verdicts may hold another case's doing. Every case of it runs
 * again from its staged state, and from now on no slot is left open. */
static void run_again_closed(qc_runner *r, const size_t *list, size_t n,
                             const qcf_op_call *const *calls, qc_exec_result *results)
{
	if (!r->strict)
		qc_runner_trace(
		        r,
		        "a command that left slots open went wrong: it runs again, and every slot "
		        "closes at its case's return from now on");
	r->strict = 1;
	for (size_t q = 0; q < n; q++) {
		staged_case *sc = &r->cases[list[q]];
		sc->done = sc->answered = sc->left_open = 0;
		memset(&results[sc->index], 0, sizeof results[sc->index]);
		qc_runner_stage_slot(r, sc, calls[sc->index]);
	}
}

/*
 * The plugin writes after execute returns. A worker dies of the first such write, and the
 * other cases' late writes die with it, so which case is caught would depend on timing: from
 * now on this runner sends one case per command (the worker then waits QC_PROBATION_SETTLE_MS
 * after each), and the cases of the piece that passed in the same worker's life run again that
 * way (their own late writes may have died with the worker).
 */
static void enter_probation(qc_runner *r, size_t m, long culprit, const qc_exec_result *results,
                            const qcf_op_call *const *calls)
{
	if (!r->probation)
		qc_runner_trace(r, "the plugin writes after execute returns: one case per command "
		                   "from now on");
	r->probation = 1;
	for (size_t i = 0; i < m; i++) {
		staged_case *sc = &r->cases[i];
		const qc_exec_result *res = &results[sc->index];
		if ((long)i == culprit || !sc->done || sc->life != r->lives ||
		    res->outcome != QC_EXEC_OK || res->late_write || sc->reruns >= MAX_RERUNS)
			continue;
		sc->reruns++;
		sc->done = sc->answered = 0;
		reset_outputs(r, sc, calls[sc->index]);
	}
}

/* Makes sc a suspect (staged_case): it runs again alone, in a fresh worker when fresh, and
 * that run's findings are its verdict. 0, or -1 when it was made one too often (MAX_RERUNS:
 * what it has stands). */
static int suspect(qc_runner *r, staged_case *sc, int fresh, const qcf_op_call *const *calls,
                   qc_exec_result *results)
{
	if (sc->suspected >= MAX_RERUNS)
		return -1;
	sc->suspected++;
	qc_runner_trace(r, "case %d runs again alone%s: what was seen may not be its own",
	                sc->index, fresh ? " in a fresh worker" : "");
	sc->alone = 1;
	sc->fresh |= fresh;
	sc->done = sc->answered = sc->left_open = 0;
	sc->result = NULL;
	memset(&results[sc->index], 0, sizeof results[sc->index]);
	reset_outputs(r, sc, calls[sc->index]);
	return 0;
}

/* The case the harness waits for, after the worker died, said something out of order, or
 * blamed another case: its own verdict when nothing of the plugin's but create() ran before
 * it in its worker (isolated_fresh: the first case of the worker, staged again); else it runs
 * again so. 1 when convicted. */
static int convict_awaited(qc_runner *r, staged_case *sc, const qcf_op_call *const *calls,
                           const char *seen)
{
	if (sc->isolated_fresh)
		return 1;
	snprintf(sc->history, sizeof sc->history, "%s", seen);
	qc_runner_trace(
	        r,
	        "case %d runs again alone in a fresh worker: the worker's end may not be its own",
	        sc->index);
	sc->alone = sc->fresh = 1;
	sc->done = sc->answered = 0;
	reset_outputs(r, sc, calls[sc->index]);
	return 0;
}

/* The case in flight when the link was lost: no verdict, it runs again as it was to run. */
static void requeue(qc_runner *r, staged_case *sc, const qcf_op_call *const *calls)
{
	sc->done = sc->answered = 0;
	if (sc->isolated) {
		sc->alone = 1;
		sc->fresh = sc->isolated_fresh;
	}
	reset_outputs(r, sc, calls[sc->index]);
}

/* --remote: the link was lost (why): 0 to start the command again, or -1 (r->broken) when it
 * was lost MAX_RECONNECTS + 1 times in a row with no case answered between. */
static int link_lost(qc_runner *r, const char *why)
{
	qc_runner_trace(r, "the link to the remote worker was lost: %s", why);
	if (r->link_row >= MAX_RECONNECTS) {
		snprintf(r->broken, sizeof r->broken,
		         "the link to the remote worker was lost %d times in a row, no case "
		         "answered between: %.480s",
		         r->link_row + 1, why);
		r->link_gone = 1;
		return -1;
	}
	r->link_row++;
	if (r->reconnects)
		atomic_fetch_add(r->reconnects, 1);
	qc_runner_trace(r, "reconnecting (%d of %d in a row)", r->link_row, MAX_RECONNECTS);
	return 0;
}

/* Runs the staged cases r->cases[0..m): 0, -1 when the stream broke (r->broken), or -2 when
 * cancelled. */
static int run_piece(qc_runner *r, size_t m, const qcf_op_call *const *calls,
                     qc_exec_result *results)
{
	int failed_sends = 0;
	size_t list[QC_WIRE_CHUNK];
again:
	for (;;) {
		if (atomic_load(&r->cancelled))
			return -2;
		/* the next command: the first cases not done; a suspect is a command of its own */
		size_t n = 0, cap = r->probation ? 1 : QC_WIRE_CHUNK;
		for (size_t i = 0; i < m && n < cap; i++) {
			if (r->cases[i].done)
				continue;
			if (r->cases[i].alone && n > 0)
				break;
			list[n++] = i;
			if (r->cases[i].alone)
				break;
		}
		if (n == 0)
			break;
		if (r->gave_up) {
			no_worker(r, m, results, r->gave_up_why);
			break;
		}
		staged_case *first = &r->cases[list[0]];
		int isolate = first->alone;
		if (isolate && first->fresh && r->pid > 0 && r->cmds > 0)
			qc_runner_end_worker(r, 1); /* a fresh worker for it */
		if (!qc_runner_worker_alive(r)) {
			char why[512];
			if (qc_runner_start_worker(r, why, sizeof why) < 0) {
				if (atomic_load(&r->cancelled))
					return -2;
				if (r->link_down && r->load_s > 0) {
					/* the command started again, and no word came */
					size_t sl = strlen(r->shown);
					if (link_lost(r, strncmp(why, r->shown, sl) == 0 &&
					                                 why[sl] == ':'
					                         ? why + sl + 2
					                         : why) < 0)
						return -1;
					continue;
				}
				/* the plugin loaded once: a restart that fails ends this run for
				 * the plugin (every case left is ERROR), not the harness */
				r->gave_up = 1;
				size_t sl = strlen(r->shown);
				const char *w = strncmp(why, r->shown, sl) == 0 && why[sl] == ':'
				                        ? why + sl + 2
				                        : why;
				snprintf(r->gave_up_why, sizeof r->gave_up_why, "%s", w);
				qc_runner_trace(r, "giving up on the plugin: %s", r->gave_up_why);
				continue;
			}
			r->lives++;
			r->cmds = 0;
		}
		int fresh_life = r->cmds == 0;
		if (isolate || fresh_life) {
			/* as staged, whatever the plugin did to its slot before */
			qc_runner_stage_slot(r, first, calls[first->index]);
			memcpy(r->arena + first->d.ro_off, r->shadow + first->shadow_off,
			       first->meta_len);
		}
		if (send_cases(r, list, n) < 0) {
			/* The worker died before reading: no case was running. */
			qc_runner_end_worker(r, 1);
			if (++failed_sends >= 3) {
				no_worker(r, m, results, "cannot send work to the worker");
				break;
			}
			continue;
		}
		r->cmds++;
		for (size_t q = 0; q < n; q++) {
			staged_case *sc = &r->cases[list[q]];
			sc->life = r->lives;
			sc->probed = r->probation;
			sc->left_open = 0;
			sc->isolated = sc->isolated_fresh = 0;
		}
		first->isolated_fresh = fresh_life;
		if (isolate) {
			first->isolated = 1;
			first->alone = first->fresh = 0;
		}
		long own = n == 1 ? (long)list[0] : -1; /* the one case of the command */
		int left_open = 0, amiss = 0; /* a slot was left open; something went wrong */
		size_t seq = 0;               /* answers so far */
		qc_fault fault;
		memset(&fault, 0, sizeof fault);
		int have_fault = 0;
		/* --remote: the device keeps the timeout; the harness waits longer for the link */
		double wait_s = r->timeout_s;
		if (r->remote && wait_s > 0) {
			double bytes = 0;
			for (size_t q = 0; q < n; q++)
				bytes += (double)r->cases[list[q]].d.slot_len;
			wait_s += LINK_WAIT_S + r->timeout_s + bytes / LINK_BYTES_PER_S;
		}
		double t0 = qc_now_s();
		for (;;) {
			int waiting = seq < n; /* for an answer, else for the command's end */
			staged_case *sc = waiting ? &r->cases[list[seq]] : NULL;
			qc_exec_result *res = sc ? &results[sc->index] : NULL;
			worker_msg msg;
			/* a worker whose fault handler spoke dies at once: after its command's end,
			 * one that lives on sent a forged fault */
			int dying = have_fault && !waiting;
			int got = next_msg(r, dying ? EXIT_WAIT_S : wait_s, &msg);
			if (atomic_load(&r->cancelled)) {
				qc_runner_end_worker(r, 1);
				return -2;
			}
			if (got == MSG_ANSWER && waiting && msg.magic == QC_MSG_ANSWER &&
			    msg.ans.seq == seq) {
				int bad = qc_runner_take_answer(r, sc, &msg.ans, calls[sc->index],
				                                res) < 0;
				amiss |= bad;
				left_open |= sc->left_open;
				/* its memory is not as it should be: its own doing only when it ran
				 * alone, staged again (another case's code may have opened it) */
				if (bad && !sc->left_open && !sc->isolated)
					suspect(r, sc, 0, calls, results);
				if (res->late_write)
					enter_probation(r, m, (long)list[seq], results, calls);
				r->link_row = 0;
				seq++;
				t0 = qc_now_s();
				continue;
			}
			if (got == MSG_ANSWER && !waiting && msg.magic == QC_MSG_DONE &&
			    msg.ans.seq == n) {
				if (have_fault)
					continue; /* sent while the faulting thread died: it is
					             dying */
				break;            /* the command is done */
			}
			if (got == MSG_FAULT) {
				fault = msg.fault;
				have_fault = 1;
				qc_runner_trace(
				        r,
				        "fault reported: %s at arena offset %llu, case %u of the "
				        "command %s%s",
				        qc_runner_signal_name(fault.signal),
				        (unsigned long long)fault.offset, fault.seq,
				        fault.state == QC_FAULT_RUNNING    ? "running"
				        : fault.state == QC_FAULT_RETURNED ? "returned"
				        : fault.state == QC_FAULT_AFTER    ? "after its return"
				                                           : "done",
				        fault.main_thread ? "" : " (another thread)");
				continue; /* the worker dies of it next */
			}
			if (got == MSG_BROKEN) {
				/* not the kernel's doing: the run stops here (--remote) */
				msg.ans.message[sizeof msg.ans.message - 1] = '\0';
				snprintf(r->broken, sizeof r->broken, "%s", msg.ans.message);
				qc_runner_trace(r, "relay: %s", r->broken);
				qc_runner_end_worker(r, 1);
				return -1;
			}
			if (got == MSG_ANSWER || got == MSG_GARBLED) {
				/* out of order or not from the worker: any answer of the command
				 * may have been forged by the plugin, which runs in the worker */
				qc_runner_trace(r, "garbled message from worker %ld", (long)r->pid);
				qc_runner_end_worker(r, 1);
				for (size_t q = 0; q < seq; q++)
					suspect(r, &r->cases[list[q]], 0, calls, results);
				if (res && convict_awaited(r, sc, calls,
				                           "garbled answer from the worker")) {
					qc_runner_set_result(res, QC_EXEC_ERROR,
					                     "garbled answer from the worker");
					res->seconds = qc_now_s() - t0;
					sc->done = 1;
				}
				break;
			}
			if (got == MSG_TIMEOUT && dying) {
				qc_runner_trace(
				        r,
				        "worker %ld lives on after its fault message: a forgery, "
				        "dismissed",
				        (long)r->pid);
				qc_runner_end_worker(r, 1);
				break;
			}
			if (got == MSG_LINK || (got == MSG_TIMEOUT && r->remote)) {
				/* not the kernel's doing: the command again, the case in flight in
				 * it */
				char why[300];
				msg.ans.message[sizeof msg.ans.message - 1] = '\0';
				if (got == MSG_LINK)
					snprintf(why, sizeof why, "%s", msg.ans.message);
				else
					snprintf(why, sizeof why,
					         "no word from the remote worker in %.3g s (its "
					         "timeout of %g s and %.3g s for the link)",
					         wait_s, r->timeout_s, wait_s - r->timeout_s);
				qc_runner_end_worker(r, 1);
				if (res)
					requeue(r, sc, calls);
				if (link_lost(r, why) < 0)
					return -1;
				break;
			}
			if (got == MSG_TIMEOUT || got == MSG_DEVICE_TIMEOUT) {
				qc_runner_trace(r, "%s timed out, killing worker %ld",
				                res ? "a case" : "the command's end", (long)r->pid);
				qc_runner_end_worker(r, 1);
				if (res) {
					qc_runner_set_result(res, QC_EXEC_TIMEOUT,
					                     "timed out after %g s (worker killed)",
					                     r->timeout_s);
					res->seconds = qc_now_s() - t0;
					sc->done = 1;
				}
				break;
			}
			/* the worker is gone: whose fault was it? */
			int st = qc_runner_end_worker(r, 0);
			if (have_fault && fault.garbled) {
				/* its stream carried what the worker never sends (--remote): as a
				 * garbled packet on a local channel */
				for (size_t q = 0; q < seq; q++)
					suspect(r, &r->cases[list[q]], 0, calls, results);
				if (res && convict_awaited(r, sc, calls,
				                           "garbled answer from the worker")) {
					qc_runner_set_result(
					        res, QC_EXEC_ERROR,
					        "garbled answer from the worker (bytes on its "
					        "stream that are not the protocol)");
					res->seconds = qc_now_s() - t0;
					sc->done = 1;
				}
				break;
			}
			long culprit = -2; /* no fault reported of another case */
			long awaited = res ? (long)list[seq] : -1, accused = -1;
			int late = 0;
			if (have_fault && fault.oom && res) {
				qc_runner_describe_exit(st, &res->signal, res->message,
				                        sizeof res->message);
				char how[sizeof res->message];
				snprintf(how, sizeof how, "%s", res->message);
				qc_runner_set_result(
				        res, QC_EXEC_CRASH,
				        "out of memory (the worker's limit of %zu MiB was "
				        "reached): %s",
				        r->memory >> 20, how);
				qc_runner_trace(r, "case %d: %s", sc->index, res->message);
				culprit = (long)list[seq];
			} else if (have_fault && fault.in_arena && fault.seq <= n) {
				size_t running = fault.seq < n ? list[fault.seq] : m;
				culprit =
				        qc_runner_apply_fault(r, running, m, &fault, calls, results,
				                              &late, awaited, own, &accused);
				if (accused >= 0)
					suspect(r, &r->cases[accused], 0, calls, results);
				if (late || culprit == -1)
					enter_probation(r, m, culprit, results, calls);
			}
			if (!res)
				break; /* between the last answer and the command's end */
			if (culprit == -2) {
				res->outcome = QC_EXEC_CRASH;
				qc_runner_describe_exit(st, &res->signal, res->message,
				                        sizeof res->message);
				static const char *const calls_named[] = {
				        "",          "supports()",   "prepare()",
				        "execute()", "last_error()", "release()",
				        "engine()"};
				if (have_fault && fault.seq == seq && fault.main_thread &&
				    fault.phase > QC_PHASE_NONE && fault.phase <= QC_PHASE_ENGINE) {
					size_t l = strlen(res->message);
					snprintf(res->message + l, sizeof res->message - l,
					         " in %s", calls_named[fault.phase]);
				}
				qc_runner_trace(r, "case %d: worker %s", sc->index, res->message);
			}
			if (culprit == (long)list[seq] ||
			    (culprit == -2 && convict_awaited(r, sc, calls, res->message))) {
				res->seconds = qc_now_s() - t0;
				sc->done = 1;
			} else if (culprit != -2 &&
			           convict_awaited(r, sc, calls, "the worker died")) {
				res->outcome = QC_EXEC_CRASH;
				qc_runner_describe_exit(st, &res->signal, res->message,
				                        sizeof res->message);
				sc->done = 1;
			}
			break;
		}
		/* slots left open: the command's verdicts stand only if nothing touched them */
		if (left_open && (amiss || !qc_runner_open_cases_intact(r, list, n, calls)))
			run_again_closed(r, list, n, calls, results);
		/* the one case of a command, its outputs changed by the command's end: late */
		if (own >= 0) {
			staged_case *sc = &r->cases[own];
			qc_exec_result *res = &results[sc->index];
			if (sc->done && sc->result && res->outcome == QC_EXEC_OK &&
			    !res->late_write && qc_runner_hash_outputs(r, sc) != sc->result_hash)
				qc_runner_mark_late(res, "output changed after execute returned");
		}
	}
	/* Outputs changed after their case's command (the kernel reopened closed pages): by
	 * whose code, the harness cannot tell. Each such case runs again alone. */
	int rerun = 0;
	for (size_t i = 0; i < m; i++) {
		staged_case *sc = &r->cases[i];
		qc_exec_result *res = &results[sc->index];
		if (sc->result && res->outcome == QC_EXEC_OK && !res->late_write &&
		    qc_runner_hash_outputs(r, sc) != sc->result_hash)
			rerun |= suspect(r, sc, 0, calls, results) == 0;
	}
	if (rerun)
		goto again;
	return 0;
}

void qc_runner_free_kept(qc_runner *r)
{
	for (size_t i = 0; i < r->n_keep; i++)
		free(r->keep[i]);
	r->n_keep = 0;
}

/* Where the next slots go: after the last batch's (late writes of a finished batch then
 * land in closed pages), from the start again when the ring's window is used up. */
static size_t ring_start(qc_runner *r, size_t need)
{
	size_t base = r->arena_bytes >= 4 * (RING_BASE + RING_WINDOW) ? RING_BASE : 0;
	size_t window = r->arena_bytes < RING_WINDOW ? r->arena_bytes : RING_WINDOW;
	if (base + need > window + base || base + window > r->arena_bytes) {
		base = 0;
		window = r->arena_bytes;
	}
	if (r->ring < base || r->ring + r->page + need > base + window)
		r->ring = base;
	return r->ring + r->page; /* a closed page before the first slot */
}

int qc_runner_execute(qc_runner *r, const qcf_op_call *const *calls, int n, qc_exec_result *results,
                      const qcf_op_call **staged, char *err, size_t err_size)
{
	qc_runner_free_kept(r);
	if (atomic_load(&r->cancelled))
		return -2;
	if (n <= 0)
		return 0;
	memset(results, 0, (size_t)n * sizeof *results);
	if (staged)
		memset(staged, 0, (size_t)n * sizeof *staged);
	staged_case *cases = qc_runner_grow(r->cases, &r->cases_cap, (size_t)n, sizeof *cases);
	if (!cases) {
		snprintf(err, err_size, "out of memory");
		return -1;
	}
	r->cases = cases;
	size_t cap = qc_runner_capacity(r);
	int i = 0;
	while (i < n) {
		/* one piece: as many cases as the arena takes */
		size_t m = 0, need = 0, shadow = 0;
		int j = i;
		for (; j < n; j++) {
			if (qc_runner_check_call(calls[j]))
				continue;
			slot_layout L;
			qc_runner_layout_call(calls[j], r->page, &L);
			if (L.d.slot_len > cap)
				continue;
			if (need + L.d.slot_len > cap)
				break;
			need += L.d.slot_len;
		}
		size_t off = ring_start(r, need), piece_start = off;
		for (; i < j; i++) {
			qc_exec_result *res = &results[i];
			const char *bad = qc_runner_check_call(calls[i]);
			if (bad) {
				qc_runner_set_result(res, QC_EXEC_ERROR, "malformed call: %s", bad);
				continue;
			}
			slot_layout L;
			qc_runner_layout_call(calls[i], r->page, &L);
			if (L.d.slot_len > cap) {
				qc_runner_set_result(
				        res, QC_EXEC_ERROR,
				        "case too large for the shared arena (%zu bytes, capacity "
				        "%zu)",
				        (size_t)L.d.slot_len, cap);
				continue;
			}
			unsigned char *sh =
			        qc_runner_grow(r->shadow, &r->shadow_cap, shadow + L.meta, 1);
			if (!sh) {
				snprintf(err, err_size, "out of memory");
				return -1;
			}
			r->shadow = sh;
			staged_case *sc = &r->cases[m++];
			memset(sc, 0, sizeof *sc);
			sc->index = i;
			sc->d = L.d;
			sc->d.slot_off = off;
			sc->d.ro_off += off;
			sc->d.call_off = off;
			for (uint32_t k = 0; k < sc->d.n_outputs; k++) {
				sc->d.rw_off[k] += off;
				sc->d.out_off[k] += off;
			}
			sc->meta_len = L.meta;
			sc->shadow_off = shadow;
			qc_runner_stage_slot(r, sc, calls[i]);
			memcpy(r->shadow + shadow, r->arena + sc->d.ro_off, L.meta);
			off += L.d.slot_len;
			shadow += L.meta;
		}
		r->ring = off - r->page;
		if (m == 0)
			continue;
		if (i < n)
			qc_runner_trace(
			        r, "batch does not fit the arena: running %zu case(s) in one piece",
			        m);
		int rc = run_piece(r, m, calls, results);
		if (rc == -1)
			snprintf(err, err_size, "%s: %s", r->shown, r->broken);
		if (rc < 0)
			return rc;
		for (size_t q = 0; q < m; q++) {
			staged_case *sc = &r->cases[q];
			if (!sc->result && qc_runner_keep_result(r, sc, calls[sc->index]) < 0) {
				snprintf(err, err_size, "out of memory");
				return -1;
			}
			if (staged)
				staged[sc->index] = sc->result;
		}
		/* Everything was copied out. A piece that went past the ring's window gives its
		 * pages back (they stay closed in the worker, so a late write still faults): memory
		 * stays about the window whatever the number of cases. */
		size_t len = QC_ROUND_UP(off - piece_start, r->page);
		if (off > RING_BASE + RING_WINDOW + r->page &&
		    fallocate(r->arena_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		              (off_t)piece_start, (off_t)len) != 0)
			madvise(r->arena + piece_start, len, MADV_REMOVE);
	}
	return 0;
}
