/* runner_result: what a case's run comes to: its answer taken, its outputs copied out, the
 * harness's checks of its memory, and whose fault a fault is. */
#include "run/runner_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/wire.h"

/* ------------------------------------------------------------ the results */

/* The bytes of output k of a staged case, in the harness's mapping. */
static const unsigned char *out_bytes(const qc_runner *r, const staged_case *sc, uint32_t k)
{
	return r->arena + sc->d.out_off[k];
}

uint64_t qc_runner_hash_outputs(const qc_runner *r, const staged_case *sc)
{
	return qc_wire_hash_outputs(r->arena, &sc->d);
}

/* The call handed back to the caller: the caller's call, with its inputs (by reference) and
 * the kernel's outputs as they were when the case finished (copied out of the arena). */
int qc_runner_keep_result(qc_runner *r, staged_case *sc, const qcf_op_call *orig)
{
	stager s = {{NULL, 0}, {NULL, 0}, 1, NULL, 0};
	qc_runner_stage_call(&s, orig);
	size_t meta = QC_ROUND_UP(s.meta.off, QC_DATA_ALIGN), total = meta;
	size_t at[QC_WIRE_MAX_OUTPUTS];
	for (uint32_t k = 0; k < sc->d.n_outputs; k++) {
		at[k] = total;
		total += QC_ROUND_UP(sc->d.out_len[k], QC_DATA_ALIGN);
	}
	unsigned char *buf = aligned_alloc(QC_DATA_ALIGN, QC_ROUND_UP(total ? total : 1, 64));
	void **keep = qc_runner_grow(r->keep, &r->keep_cap, r->n_keep + 1, sizeof *keep);
	if (!buf || !keep) {
		free(buf);
		return -1;
	}
	r->keep = keep;
	r->keep[r->n_keep++] = buf;
	unsigned char *out_at[QC_WIRE_MAX_OUTPUTS];
	uint64_t h = 0; /* of the copies, as qc_wire_hash_outputs hashes the arena */
	for (uint32_t k = 0; k < sc->d.n_outputs; k++) {
		out_at[k] = buf + at[k];
		memcpy(out_at[k], out_bytes(r, sc, k), sc->d.out_len[k]);
		h = qc_wire_hash_more(h, out_at[k], sc->d.out_len[k]);
	}
	stager w = {{buf, 0}, {NULL, 0}, 1, NULL, 0};
	qcf_op_call *c = qc_runner_stage_call(&w, orig);
	for (uint32_t k = 0; k < sc->d.n_outputs && k < (uint32_t)c->n_outputs; k++)
		c->outputs[k].data = out_at[k];
	sc->result = c;
	sc->result_hash = h;
	return 0;
}

void qc_runner_set_result(qc_exec_result *res, qc_outcome o, const char *fmt, ...)
{
	res->outcome = o;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->message, sizeof res->message, fmt, ap);
	va_end(ap);
}

/* The harness's own checks of a case the worker answered: the pattern bytes around its
 * outputs, its inputs and its call description, all at offsets the harness computed. 0, or
 * -1 with the verdict in res. */
static int check_case(const qc_runner *r, const staged_case *sc, const qcf_op_call *orig,
                      qc_exec_result *res)
{
	const qc_case_desc *d = &sc->d;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		const unsigned char *reg = r->arena + d->rw_off[k];
		size_t head = d->out_off[k] - d->rw_off[k];
		size_t tail = d->rw_len[k] - head - d->out_len[k];
		if (!qc_runner_pattern_intact(reg + head + d->out_len[k], tail)) {
			qc_runner_set_result(res, QC_EXEC_ERROR, "wrote past the end of output %u",
			                     k);
			return -1;
		}
		if (!qc_runner_pattern_intact(reg, head)) {
			qc_runner_set_result(res, QC_EXEC_ERROR,
			                     "wrote before the start of output %u", k);
			return -1;
		}
	}
	const unsigned char *in = r->arena + d->ro_off + sc->meta_len;
	size_t off = 0, room = d->ro_len - sc->meta_len;
	for (int32_t k = 0; k < orig->n_inputs; k++) {
		const qcf_tensor *t = &orig->inputs[k];
		if (!t->data && !t->nbytes)
			continue;
		size_t at = QC_ROUND_UP(off, QC_DATA_ALIGN);
		if (!qc_runner_pattern_intact_from(in + off, at - off, off) ||
		    memcmp(in + at, t->data, t->nbytes) != 0 ||
		    !qc_runner_pattern_intact(in + at + t->nbytes, QC_GUARD_BYTES)) {
			qc_runner_set_result(res, QC_EXEC_ERROR, "modified input %d", (int)k);
			return -1;
		}
		off = at + t->nbytes + QC_GUARD_BYTES;
	}
	/* the rest of the inputs' pages: right before output 0 */
	if (!qc_runner_pattern_intact_from(in + off, room - off, off)) {
		qc_runner_set_result(res, QC_EXEC_ERROR,
		                     d->n_outputs ? "wrote before the start of output 0"
		                                  : "wrote past its inputs");
		return -1;
	}
	if (memcmp(r->arena + d->ro_off, r->shadow + sc->shadow_off, sc->meta_len) != 0) {
		qc_runner_set_result(
		        res, QC_EXEC_ERROR,
		        "modified the call's description (tensors, shapes, quantization or "
		        "attributes)");
		return -1;
	}
	return 0;
}

/* Which part of a staged case an arena offset is in. */
typedef enum { IN_NONE, IN_META, IN_INPUT, IN_OUTPUT, IN_BEFORE, IN_AFTER, IN_SLOT } place;

static place locate(const staged_case *sc, const qcf_op_call *orig, uint64_t off, size_t page,
                    int *which)
{
	const qc_case_desc *d = &sc->d;
	*which = 0;
	if (off < d->slot_off || off - d->slot_off >= d->slot_len)
		return IN_NONE;
	if (off >= d->ro_off && off < d->ro_off + d->ro_len) {
		if (off < d->ro_off + sc->meta_len)
			return IN_META;
		uint64_t at = d->ro_off + sc->meta_len, o = 0;
		for (int32_t k = 0; k < orig->n_inputs; k++) {
			const qcf_tensor *t = &orig->inputs[k];
			if (!t->data && !t->nbytes)
				continue;
			o = QC_ROUND_UP(o, QC_DATA_ALIGN);
			if (off >= at + o && off < at + o + t->nbytes + QC_GUARD_BYTES) {
				*which = (int)k;
				return IN_INPUT;
			}
			o += t->nbytes + QC_GUARD_BYTES;
		}
		return IN_SLOT;
	}
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		*which = (int)k;
		if (off >= d->out_off[k] && off < d->out_off[k] + d->out_len[k])
			return IN_OUTPUT;
		/* the output's region and the gap page after it: past its end */
		if (off >= d->out_off[k] + d->out_len[k] &&
		    off < d->rw_off[k] + d->rw_len[k] + page)
			return IN_AFTER;
		if (off >= d->rw_off[k] && off < d->out_off[k])
			return IN_BEFORE;
	}
	return IN_SLOT;
}

/* "output 0 +1048576 bytes": where an offset is relative to the case's nearest output. */
static void relative(const staged_case *sc, uint64_t off, char *buf, size_t size)
{
	const qc_case_desc *d = &sc->d;
	if (!d->n_outputs) {
		snprintf(buf, size, "input region %+lld bytes",
		         (long long)off - (long long)d->ro_off);
		return;
	}
	uint32_t best = 0;
	long long bd = 0;
	for (uint32_t k = 0; k < d->n_outputs; k++) {
		long long delta = (long long)off - (long long)d->out_off[k];
		if (k == 0 || llabs(delta) < llabs(bd)) {
			best = k;
			bd = delta;
		}
	}
	snprintf(buf, size, "output %u %+lld bytes", best, bd);
}

/* A case whose outputs changed after execute returned: the judge decides what that makes
 * it (runner.h, late_write). */
void qc_runner_mark_late(qc_exec_result *res, const char *what)
{
	if (res->outcome == QC_EXEC_OK) {
		res->late_write = 1;
		snprintf(res->message, sizeof res->message, "%s", what);
	} else {
		qc_runner_set_result(res, QC_EXEC_ERROR, "%s", what);
	}
}

/* Was the worker's thread after execute's return when it faulted (closing, last_error,
 * release)? */
static int after_return(const qc_fault *f)
{
	return f->state == QC_FAULT_RETURNED || f->state == QC_FAULT_AFTER;
}

/*
 * Whose fault a fault is: the running case's, unless the address is in a case that had
 * answered and the access came from another thread (or between cases, or after execute
 * returned): then it is that case's late access. The verdict goes into results; returns the
 * culprit's position in r->cases, or -1 (no case of this batch: a late access of an earlier
 * batch, or between cases where no case of the batch owns the address).
 *
 * The fault is the worker process's word, which the plugin can forge: it convicts only the
 * case the harness waits for (awaited) or the one case of the command (own), else -1. A late
 * access it says of another case makes that case a suspect (*suspect, see staged_case).
 */
long qc_runner_apply_fault(qc_runner *r, size_t running, size_t m, const qc_fault *f,
                           const qcf_op_call *const *calls, qc_exec_result *results, int *is_late,
                           long awaited, long own, long *suspect)
{
	*is_late = 0;
	*suspect = -1;
	long owner = -1;
	for (size_t i = 0; i < m; i++) {
		const qc_case_desc *d = &r->cases[i].d;
		if (f->offset >= d->slot_off && f->offset - d->slot_off < d->slot_len) {
			owner = (long)i;
			break;
		}
	}
	const char *verb = f->write == 0 ? "read" : "wrote";
	/* late: the owner's execute had returned (answered, or the fault came between its return
	 * and its answer) */
	int late = owner >= 0 &&
	           ((r->cases[owner].answered && (f->state != QC_FAULT_RUNNING || !f->main_thread ||
	                                          (size_t)owner == running)) ||
	            (after_return(f) && (size_t)owner == running));
	if (late && owner != awaited && owner != own) {
		*suspect = owner;
		return -1;
	}
	if (late) {
		staged_case *sc = &r->cases[owner];
		int which;
		place pl = locate(sc, calls[sc->index], f->offset, r->page, &which);
		char what[200];
		if (pl == IN_OUTPUT && f->write != 0)
			snprintf(what, sizeof what,
			         "output changed after execute returned (output %d "
			         "written later)",
			         which);
		else
			snprintf(what, sizeof what, "%s %s %d after execute returned", verb,
			         pl == IN_OUTPUT  ? "output"
			         : pl == IN_INPUT ? "input"
			                          : "its call's memory, part",
			         which);
		qc_runner_mark_late(&results[sc->index], what);
		qc_runner_trace(r, "case %d: %s", sc->index, what);
		*is_late = 1;
		return owner;
	}
	if (f->state != QC_FAULT_RUNNING || running >= m || (long)running != awaited)
		return -1;
	/* the running case touched what is not its own to touch; reads count as much as
	 * writes (either breaks the memory rules, and on x86 a read-modify-write faults on
	 * its read) */
	staged_case *sc = &r->cases[running];
	qc_exec_result *out = &results[sc->index];
	int which;
	place pl = locate(sc, calls[sc->index], f->offset, r->page, &which);
	char rel[96];
	relative(sc, f->offset, rel, sizeof rel);
	switch (pl) {
	case IN_META:
		qc_runner_set_result(out, QC_EXEC_ERROR, "%s the call's description",
		                     f->write == 0 ? "read" : "modified");
		break;
	case IN_INPUT: qc_runner_set_result(out, QC_EXEC_ERROR, "modified input %d", which); break;
	case IN_AFTER:
		qc_runner_set_result(out, QC_EXEC_ERROR, "%s past the end of output %d", verb,
		                     which);
		break;
	case IN_BEFORE:
		qc_runner_set_result(out, QC_EXEC_ERROR, "%s before the start of output %d", verb,
		                     which);
		break;
	default:
		qc_runner_set_result(
		        out, QC_EXEC_ERROR, "%s outside its buffers (%s%s)", verb, rel,
		        owner >= 0 && (size_t)owner != running ? ", in another case's memory" : "");
		break;
	}
	out->signal = f->signal;
	qc_runner_trace(r, "case %d: %s", sc->index, out->message);
	return (long)running;
}

/* The engine the plugin reported in a: its kind as it came (an unknown value stays unknown),
 * its name cut to printable ASCII. */
static void engine_of(const qc_answer *a, qc_exec_result *res)
{
	char name[sizeof a->engine_name + 1];
	memcpy(name, a->engine_name, sizeof a->engine_name);
	name[sizeof a->engine_name] = '\0';
	res->engine = a->engine;
	qc_wire_copy_printable(res->engine_name, sizeof res->engine_name, name);
}

/* The answer for case sc: its outcome, the outputs copied out, the harness's checks. 0, or -1
 * when the case's memory is not as the harness left it or as the worker saw it at return. */
int qc_runner_take_answer(qc_runner *r, staged_case *sc, const qc_answer *a,
                          const qcf_op_call *orig, qc_exec_result *res)
{
	memset(res, 0, sizeof *res);
	if (a->outcome < QC_EXEC_OK || a->outcome > QC_EXEC_ERROR) {
		qc_runner_set_result(res, QC_EXEC_ERROR, "garbled answer from the worker");
	} else {
		res->outcome = (qc_outcome)a->outcome;
		res->seconds = a->seconds;
		memcpy(res->message, a->message, sizeof res->message);
		res->message[sizeof res->message - 1] = '\0';
		if (res->outcome == QC_EXEC_OK)
			engine_of(a, res);
	}
	sc->answered = sc->done = 1;
	memcpy(res->history, sc->history, sizeof res->history);
	if ((a->flags & QC_ANS_CHANGED_AT_CLOSE) && res->outcome == QC_EXEC_OK) {
		res->late_write = 1;
		snprintf(res->message, sizeof res->message,
		         "output changed after execute returned (while its memory was closed)");
	}
	sc->left_open = (a->flags & QC_ANS_LEFT_OPEN) != 0;
	sc->open_hash = a->out_hash;
	if (qc_runner_keep_result(r, sc, orig) < 0) {
		qc_runner_set_result(res, QC_EXEC_ERROR,
		                     "harness out of memory keeping the outputs");
		return 0;
	}
	if (check_case(r, sc, orig, res) < 0)
		return -1;
	if (sc->left_open)
		return sc->result_hash != sc->open_hash ? -1 : 0;
	/* the worker runs the next case while the harness copies this one's outputs: when they
	 * differ from the worker's at return, the change is its own only when it ran alone */
	if (res->outcome == QC_EXEC_OK && !res->late_write && sc->result_hash != a->out_hash) {
		if (!sc->isolated)
			return -1;
		qc_runner_mark_late(res, "output changed after execute returned");
	}
	return 0;
}

/* Is every case of the command list[0..n) that was left open still as it was at its return
 * (outputs as the worker hashed them, pattern bytes, inputs, call)? */
int qc_runner_open_cases_intact(const qc_runner *r, const size_t *list, size_t n,
                                const qcf_op_call *const *calls)
{
	for (size_t q = 0; q < n; q++) {
		const staged_case *sc = &r->cases[list[q]];
		qc_exec_result scratch;
		if (sc->done && sc->left_open &&
		    (qc_runner_hash_outputs(r, sc) != sc->open_hash ||
		     check_case(r, sc, calls[sc->index], &scratch) < 0))
			return 0;
	}
	return 1;
}
