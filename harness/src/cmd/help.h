/*
 * The command line's one description: every command's synopsis, options and examples. It
 * drives `qconform --help`, `qconform COMMAND --help`, the man pages (`qconform --man`, built by
 * `make man`) and the "did you mean" of a mistyped command or option.
 */
#ifndef QC_HELP_H
#define QC_HELP_H

#include <stdio.h>

typedef struct qc_help_option {
	const char *flag; /* "--plugin" */
	const char *arg;  /* "PATH", or NULL for a switch */
	const char *text; /* one sentence or two */
} qc_help_option;

typedef struct qc_help_command {
	const char *name;     /* "run" */
	const char *synopsis; /* arguments after the command's name */
	const char *summary;  /* one line, lower case, no full stop */
	const char *text;     /* description: paragraphs separated by blank lines */
	const qc_help_option *options;
	const char *examples; /* "command\n  what it does\n" pairs */
} qc_help_command;

/* The command named name, or NULL. */
const qc_help_command *qc_help_find(const char *name);

/* `qconform --help`: every command with its summary. */
void qc_help_usage(FILE *f);

/* Every command's name, one a line. */
void qc_help_names(FILE *f);

/* `qconform COMMAND --help`. */
void qc_help_print(FILE *f, const qc_help_command *c);

/* The man page in roff: qconform(1) for c NULL, else qconform-NAME(1). */
void qc_help_man(FILE *f, const qc_help_command *c);

/* The command, or the option of command cmd (flags of every command when cmd is NULL), nearest
 * to word by edit distance; NULL when none is close. */
const char *qc_help_nearest_command(const char *word);
const char *qc_help_nearest_option(const char *cmd, const char *word);

/* "qconform CMD: unknown option X (did you mean Y?)" on stderr; returns 2. */
int qc_help_unknown_option(const char *cmd, const char *arg);

#endif
