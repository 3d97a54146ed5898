/*
 * feed: the host's side of the streamed runner (harness/runner/qconform_case.h, "Streamed
 * cases"). `qconform feed DIR --device CMD` starts CMD (its stdin and stdout are the device's
 * line: a serial port through a program, or an emulator's UART), answers the runner's
 * requests with the session and the export's case files, and writes what the device says to
 * a capture that `qconform import DIR --outputs CAPTURE` judges:
 *
 *   the device's own lines               as they came (import skips them)
 *   each record's "QC1 " lines           once the record is whole and its CRC-32 holds
 *   a case abort of its own (source 1)   when a case started and no answer came in --timeout
 *
 * A device that restarts (its command ends, or it asks for a session again) starts a new
 * session after the last case answered or started: a case that was running when it went is
 * not run again, and import judges it CRASH from its start with no answer. A case that
 * outlives --timeout is aborted (TIMEOUT) and the device restarted (CMD started again). A
 * device that does not get past a case in --restarts restarts, or writes what is not a record,
 * stops the feed with one line and exit 2; the capture holds everything before.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/rfile.h"
#include "base/util.h"
#include "offline/export.h"
#include "offline/qcbin.h"

#define FEED_LINE_MAX   4096 /* a device line longer than this is cut (not a record line) */
#define FEED_RECORD_MAX (1u << 30)

typedef struct feed {
	const char *dir, *device, *capture;
	double timeout_s;
	int restarts_max, quiet;
	uint32_t manifest_crc, n_cases;
	uint32_t *case_crc;
	FILE *out;
	/* the device */
	pid_t pid;
	int to, from;
	/* what it said */
	char line[FEED_LINE_MAX + 1];
	size_t line_n;
	unsigned char *rec; /* the record being assembled from its lines */
	size_t rec_n, rec_cap;
	char *rec_lines; /* its lines, written to the capture once it is whole */
	size_t rec_lines_n, rec_lines_cap;
	/* progress */
	uint32_t next;     /* the first case neither answered nor started in vain */
	long inflight;     /* the case started and not answered, or -1 */
	double started_at; /* when it started (host clock) */
	int restarts;      /* in a row, with no case answered */
	int done;
	long answered;
} feed;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int device_start(feed *F, char *err, size_t err_size)
{
	int in[2], out[2];
	if (pipe(in) != 0 || pipe(out) != 0)
		return qc_errf(err, err_size, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		return qc_errf(err, err_size, "fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", F->device, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	F->pid = pid;
	F->to = in[1];
	F->from = out[0];
	fcntl(F->to, F_SETFD, FD_CLOEXEC);
	fcntl(F->from, F_SETFD, FD_CLOEXEC);
	F->line_n = F->rec_n = F->rec_lines_n = 0;
	return 0;
}

static void device_stop(feed *F)
{
	if (F->pid <= 0)
		return;
	close(F->to);
	close(F->from);
	kill(-F->pid, SIGKILL);
	kill(F->pid, SIGKILL);
	while (waitpid(F->pid, NULL, 0) < 0 && errno == EINTR)
		;
	F->pid = 0;
}

static int send_all(feed *F, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n) {
		ssize_t w = write(F->to, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1; /* the device went: its restart says so */
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes record bytes to the capture as the runner's stream lines (an abort of the feed's). */
static void capture_record(feed *F, const unsigned char *p, size_t n)
{
	static const char b64[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t at = 0; at < n; at += QCF_STREAM_PIECE) {
		size_t k = n - at < QCF_STREAM_PIECE ? n - at : QCF_STREAM_PIECE;
		fputs(QCF_STREAM_PREFIX, F->out);
		for (size_t i = 0; i < k; i += 3) {
			uint32_t v = (uint32_t)p[at + i] << 16;
			if (i + 1 < k)
				v |= (uint32_t)p[at + i + 1] << 8;
			if (i + 2 < k)
				v |= p[at + i + 2];
			fputc(b64[(v >> 18) & 63], F->out);
			fputc(b64[(v >> 12) & 63], F->out);
			fputc(i + 1 < k ? b64[(v >> 6) & 63] : '=', F->out);
			fputc(i + 2 < k ? b64[v & 63] : '=', F->out);
		}
		fputc('\n', F->out);
	}
}

/* The case in flight outlived --timeout: its abort, by the feed (source 1). */
static void abort_inflight(feed *F)
{
	qc_wbuf w = {0};
	char msg[160];
	snprintf(msg, sizeof msg,
	         "no answer %.0f s after the case started (the device was restarted)",
	         F->timeout_s);
	qc_wb_header(&w, QCF_MAGIC_ABORT, (uint32_t)F->inflight);
	qc_wb_u32(&w, F->case_crc[F->inflight]);
	qc_wb_u32(&w, QCF_ABORT_TIMEOUT);
	qc_wb_u32(&w, 1);
	qc_wb_u64(&w, (uint64_t)((now_s() - F->started_at) * 1e9));
	qc_wb_str(&w, msg);
	qc_wb_finish(&w);
	capture_record(F, w.p, w.n);
	qc_wb_free(&w);
}

/* Sends case file `index` (or the session, QCF_REQ_SESSION). 0, or -1 (the line is gone). */
static int answer_request(feed *F, uint32_t index, char *err, size_t err_size, int *fatal)
{
	if (index == QCF_REQ_SESSION) {
		qc_wbuf w = {0};
		qc_wb_header(&w, QCF_MAGIC_SESSION, F->n_cases);
		qc_wb_u32(&w, F->manifest_crc);
		qc_wb_u32(&w, F->next);
		qc_wb_u32(&w, F->n_cases - F->next);
		qc_wb_u32(&w, 0);
		qc_wb_finish(&w);
		int rc = send_all(F, w.p, w.n);
		qc_wb_free(&w);
		if (!F->quiet)
			printf("feed: session from case %u of %u\n", F->next, F->n_cases);
		return rc;
	}
	if (index >= F->n_cases) {
		*fatal = 1;
		return qc_errf(err, err_size, "the device asks for case %u, the export has %u",
		               index, F->n_cases);
	}
	char path[2200], why[2400];
	size_t n;
	snprintf(path, sizeof path, "%s/cases/%06u.qcc", F->dir, index);
	unsigned char *p =
	        qc_read_whole(path, QC_RECORDS_MAX_BYTES, "case file", &n, why, sizeof why);
	if (!p) {
		*fatal = 1;
		return qc_errf(err, err_size, "%s", why);
	}
	int rc = send_all(F, p, n);
	free(p);
	return rc;
}

/* A whole record from the device: its lines go to the capture; it moves the feed on. */
static int take_record(feed *F, char *err, size_t err_size, int *fatal)
{
	const unsigned char *r = F->rec;
	uint32_t total = qc_le32(r + 8), index = qc_le32(r + 12);
	if (qc_crc32(0, r, total - 4) != qc_le32(r + total - 4)) {
		*fatal = 1;
		return qc_errf(err, err_size,
		               "the device wrote a record that fails its CRC-32 (a noisy line?)");
	}
	fwrite(F->rec_lines, 1, F->rec_lines_n, F->out);
	F->rec_lines_n = 0;
	if (!memcmp(r, QCF_MAGIC_REQUEST, 4)) {
		if (index == QCF_REQ_SESSION && F->inflight >= 0) {
			/* restarted by itself in the middle of a case: not run again */
			F->next = (uint32_t)F->inflight + 1;
			F->inflight = -1;
		}
		fflush(F->out);
		return answer_request(F, index, err, err_size, fatal);
	}
	if (!memcmp(r, QCF_MAGIC_START, 4)) {
		F->inflight = index;
		F->started_at = now_s();
	} else if (!memcmp(r, QCF_MAGIC_RESULT, 4) || !memcmp(r, QCF_MAGIC_ABORT, 4)) {
		F->inflight = -1;
		F->next = index + 1;
		F->restarts = 0;
		F->answered++;
	} else if (!memcmp(r, QCF_MAGIC_END, 4)) {
		if (F->next >= F->n_cases)
			F->done = 1;
	} else if (memcmp(r, QCF_MAGIC_RUNNER, 4)) {
		*fatal = 1;
		return qc_errf(err, err_size, "the device wrote a record of an unknown kind");
	}
	return 0;
}

/* One line from the device. */
static int take_line(feed *F, char *err, size_t err_size, int *fatal)
{
	char *s = F->line, *e = F->line + F->line_n;
	while (s < e && *s == '\r')
		s++;
	while (e > s && (e[-1] == '\r' || e[-1] == ' '))
		e--;
	size_t pl = strlen(QCF_STREAM_PREFIX);
	if ((size_t)(e - s) < pl || memcmp(s, QCF_STREAM_PREFIX, pl)) {
		/* the firmware's own line */
		fwrite(F->line, 1, F->line_n, F->out);
		fputc('\n', F->out);
		return 0;
	}
	s += pl;
	if ((e - s) % 4) {
		*fatal = 1;
		return qc_errf(err, err_size, "the device wrote a cut stream line");
	}
	size_t need = F->rec_n + (size_t)(e - s) / 4 * 3;
	if (need > FEED_RECORD_MAX) {
		*fatal = 1;
		return qc_errf(err, err_size, "the device wrote a record larger than 1 GiB");
	}
	if (need > F->rec_cap) {
		F->rec_cap = need * 2;
		F->rec = qc_xrealloc(F->rec, F->rec_cap, 1);
	}
	for (char *k = s; k < e; k += 4) {
		int v[4], pad = 0;
		for (int j = 0; j < 4; j++) {
			v[j] = k[j] == '=' && k + 4 == e && j >= 2 ? (pad++, 0)
			                                           : qc_b64_value(k[j]);
			if (v[j] < 0) {
				*fatal = 1;
				return qc_errf(err, err_size,
				               "the device wrote a line that is not base64");
			}
		}
		uint32_t x = (uint32_t)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
		F->rec[F->rec_n++] = (unsigned char)(x >> 16);
		if (pad < 2)
			F->rec[F->rec_n++] = (unsigned char)(x >> 8);
		if (pad < 1)
			F->rec[F->rec_n++] = (unsigned char)x;
	}
	size_t ln = F->line_n + 1;
	if (F->rec_lines_n + ln > F->rec_lines_cap) {
		F->rec_lines_cap = (F->rec_lines_n + ln) * 2;
		F->rec_lines = qc_xrealloc(F->rec_lines, F->rec_lines_cap, 1);
	}
	memcpy(F->rec_lines + F->rec_lines_n, F->line, F->line_n);
	F->rec_lines[F->rec_lines_n + F->line_n] = '\n';
	F->rec_lines_n += ln;
	if (F->rec_n >= 12) {
		uint32_t total = qc_le32(F->rec + 8);
		if (total < QCF_HEADER_BYTES + 4 || total > FEED_RECORD_MAX) {
			*fatal = 1;
			return qc_errf(err, err_size, "the device wrote a damaged record header");
		}
		if (F->rec_n > total) {
			*fatal = 1;
			return qc_errf(err, err_size,
			               "the device's record lines run past the record's end");
		}
		if (F->rec_n == total) {
			int rc = take_record(F, err, err_size, fatal);
			F->rec_n = 0;
			return rc;
		}
	}
	return 0;
}

/* Reads the device until the session ends, the device goes, or the case in flight times
 * out. 1: all cases answered; 0: restart the device; -1: stop (err). */
static int serve(feed *F, char *err, size_t err_size)
{
	char buf[65536];
	for (;;) {
		int wait_ms = -1;
		if (F->inflight >= 0) {
			double left = F->started_at + F->timeout_s - now_s();
			if (left <= 0) {
				if (!F->quiet)
					printf("feed: case %ld: no answer in %.0f s: TIMEOUT, "
					       "restarting "
					       "the device\n",
					       F->inflight, F->timeout_s);
				abort_inflight(F);
				F->next = (uint32_t)F->inflight + 1;
				F->inflight = -1;
				return 0;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		struct pollfd pfd = {F->from, POLLIN, 0};
		int pr = poll(&pfd, 1, wait_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0)
			continue;
		ssize_t n = read(F->from, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (F->rec_lines_n)
				fputs("# qconform feed: the device went in the middle of a record; "
				      "its "
				      "lines are dropped\n",
				      F->out);
			if (F->inflight >= 0) {
				F->next = (uint32_t)F->inflight + 1; /* not run again: CRASH */
				if (!F->quiet)
					printf("feed: the device went during case %ld (CRASH)\n",
					       F->inflight);
				F->inflight = -1;
			}
			return 0;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (F->line_n < FEED_LINE_MAX)
					F->line[F->line_n++] = buf[i];
				continue;
			}
			int fatal = 0;
			if (take_line(F, err, err_size, &fatal) != 0 && fatal)
				return -1;
			F->line_n = 0;
			if (F->done)
				return 1;
		}
	}
}

int qc_feed(const qc_feed_opts *o)
{
	feed F;
	memset(&F, 0, sizeof F);
	F.dir = o->dir;
	F.device = o->device;
	F.capture = o->capture;
	F.timeout_s = o->timeout_s;
	F.restarts_max = o->restarts_max;
	F.quiet = o->quiet;
	F.inflight = -1;
	char path[2200], err[2600];
	snprintf(path, sizeof path, "%s/manifest.qcm", F.dir);
	size_t n;
	unsigned char *m =
	        qc_read_whole(path, QC_MANIFEST_MAX_BYTES, "manifest", &n, err, sizeof err);
	qc_rbuf r;
	char version[QCF_VERSION_BYTES + 1], why[256];
	if (!m)
		return fprintf(stderr, "qconform feed: %s (not an export directory?)\n", err), 2;
	if (qc_bin_open(m, n, QCF_MAGIC_MANIFEST, 1, &F.n_cases, version, &r, why, sizeof why) !=
	    0) {
		free(m);
		return fprintf(stderr, "qconform feed: %s: %s\n", path, why), 2;
	}
	F.manifest_crc = qc_crc32(0, m, r.n);
	/* each case's CRC-32, for the feed's own aborts: the manifest's list at its end */
	F.case_crc = qc_xcalloc((size_t)F.n_cases + 1, sizeof *F.case_crc);
	qc_rb_u64(&r);
	free(qc_rb_str(&r));
	for (int l = 0; l < 4; l++) {
		uint32_t k = qc_rb_u32(&r);
		for (uint32_t j = 0; j < k && !r.bad; j++)
			free(qc_rb_str(&r));
	}
	qc_rb_u32(&r);
	qc_rb_u32(&r);
	uint32_t n_specs = qc_rb_u32(&r);
	for (uint32_t j = 0; j < n_specs && !r.bad; j++) {
		free(qc_rb_str(&r));
		free(qc_rb_str(&r));
		qc_rb_u64(&r);
	}
	for (uint32_t j = 0; j < F.n_cases && !r.bad; j++) {
		F.case_crc[j] = qc_rb_u32(&r);
		qc_rb_u32(&r);
		qc_rb_u64(&r);
		free(qc_rb_str(&r));
	}
	int bad = r.bad;
	free(m);
	if (bad) {
		free(F.case_crc);
		return fprintf(stderr, "qconform feed: %s: malformed\n", path), 2;
	}
	char cap[2200];
	if (!F.capture) {
		snprintf(cap, sizeof cap, "%s/outputs.log", F.dir);
		F.capture = cap;
	}
	if (!(F.out = fopen(F.capture, "w"))) {
		free(F.case_crc);
		return fprintf(stderr, "qconform feed: %s: %s\n", F.capture, strerror(errno)), 2;
	}
	signal(SIGPIPE, SIG_IGN);
	int rc = 0;
	for (;;) {
		if (device_start(&F, err, sizeof err) != 0) {
			rc = 2;
			break;
		}
		int s = serve(&F, err, sizeof err);
		device_stop(&F);
		fflush(F.out);
		if (s == 1)
			break;
		if (s < 0) {
			fprintf(stderr,
			        "qconform feed: %s (the capture %s holds what came before)\n", err,
			        F.capture);
			rc = 2;
			break;
		}
		if (F.next >= F.n_cases && !F.done) {
			/* every case answered or judged: a session of none closes the capture */
		}
		if (++F.restarts > F.restarts_max) {
			fprintf(stderr,
			        "qconform feed: the device restarted %d times without answering a "
			        "case (at case %u of %u); the capture %s holds what came before\n",
			        F.restarts - 1, F.next, F.n_cases, F.capture);
			rc = 2;
			break;
		}
	}
	if (fclose(F.out) != 0 && rc == 0) {
		fprintf(stderr, "qconform feed: %s: %s\n", F.capture, strerror(errno));
		rc = 2;
	}
	free(F.case_crc);
	free(F.rec);
	free(F.rec_lines);
	if (rc == 0 && !F.quiet)
		printf("feed: %ld cases answered; the capture is %s (qconform import %s --outputs "
		       "%s)\n",
		       F.answered, F.capture, F.dir, F.capture);
	return rc;
}
