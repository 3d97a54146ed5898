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

/*
 * A command's words read against its options above, the one table --help and the man pages
 * print: a command accepts exactly the options its help lists, each with a value exactly when
 * the help names one (arg), as the next word or after '=' (--scale=0.5); an option's '_' may be
 * written for its '-' (--zero_point). A number (-3, -0.5) is a word, and so is every word after
 * "--". Start with {.cmd = "run", .argc = n, .argv = words}.
 */
typedef struct qc_opt_reader {
	const char *cmd;
	int argc;
	char **argv; /* the command's words, its name left out */
	int i;       /* the next word */
	int words;   /* set after "--": the rest are words */
} qc_opt_reader;

/*
 * The next word: QC_OPT_FLAG, an option the help lists (*flag, and *value its value or NULL
 * for a switch); QC_OPT_WORD, a word that is not an option (*value); QC_OPT_END; or
 * QC_OPT_BAD, said why on stderr (an unknown option, with the nearest one, or a value
 * missing).
 */
enum { QC_OPT_END = 0, QC_OPT_FLAG = 1, QC_OPT_WORD = 2, QC_OPT_BAD = -1 };
int qc_opt_next(qc_opt_reader *r, const char **flag, const char **value);

/* "qconform CMD: FLAG is in the help but CMD does not read it" on stderr; returns 2. What a
 * parser's last branch says: a bug, caught by suite/test_cli.c. */
int qc_opt_unread(const char *cmd, const char *flag);

#endif
