/*
 * The run on a terminal: the progress line and colours. Enters the verdicts as they are judged;
 * leaves one line, redrawn in place at most ten times a second, cut to the terminal's width:
 * cases done of planned, the count of each verdict seen, the time left, the case. Nothing at
 * all when the stream is not a terminal. Colours on a terminal unless NO_COLOR is set and not
 * empty (no-color.org) or TERM is dumb.
 */
#ifndef QC_CONSOLE_H
#define QC_CONSOLE_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "judge/compare.h"

typedef struct qc_progress {
	FILE *f;
	int shown;   /* a progress line is on the screen */
	int enabled; /* a terminal, and not --quiet */
	int colour;
	uint64_t total, done, counts[QC_N_VERDICTS];
	struct timespec start, drawn;
} qc_progress;

/* Colours for f: a terminal, NO_COLOR unset or empty, TERM not dumb. */
int qc_console_colour(FILE *f);

/* The SGR sequence that colours verdict v ("" without colour), and the reset. */
const char *qc_console_verdict_on(int colour, qc_verdict v);
const char *qc_console_off(int colour);

/* enabled: draw at all (the caller knows --quiet); drawn only when f is a terminal. */
void qc_progress_init(qc_progress *p, FILE *f, uint64_t total, int enabled);

/* One judged case; redraws when 100 ms passed since the last drawing, or at the last case. */
void qc_progress_case(qc_progress *p, qc_verdict v, const char *name);

/* Erases the line (before anything else is printed; it comes back at the next case). */
void qc_progress_clear(qc_progress *p);

/* The line as it would be drawn for a terminal of width columns (tests); returns buf. */
char *qc_progress_line(const qc_progress *p, const char *name, int width, double elapsed_s,
                       char *buf, size_t size);

#endif
