/*
 * The refusal sites of the reference and whether the specs reach them
 * (suite/refusals/refusals.mk, `make refusals`).
 *
 *   refusals sites FILE.c...
 *       lists every refusal site: FILE:LINE: FUNCTION: "message format"
 *   refusals check --allow ALLOW [--pending PENDING] --gcov GCOV FILE.c...
 *       GCOV is the text of `gcov -t` over the same files, after a run of the specs
 *       against the reference built with --coverage. Lists every site with its
 *       execution count, then, on stderr, every site no case reached and that ALLOW
 *       and PENDING do not name ("FILE:LINE: FUNCTION: refusal never exercised:
 *       "format""), every listed site that a case reached after all, and every
 *       entry that names no site. Exit 1 when there is any.
 *
 * A refusal site is a call qref_fail(detail, QCF_INVALID_PARAM, "format", ...),
 * or of a variant qref_fail_*(detail, WHAT..., QCF_INVALID_PARAM, "format", ...)
 * (the message is the format's string literals as written in the source), or a
 * bare `return QCF_INVALID_PARAM;` that is a refusal of its own. A bare return
 * under an `if` whose condition calls a helper with the function's qref_detail
 * pointer is the propagation of the helper's refusal (the helper's own
 * qref_fail is the site) and is not counted. Every other use of
 * QCF_INVALID_PARAM in a function is an error (exit 2): a new form of refusal
 * has to be taught here rather than go unmeasured.
 *
 * ALLOW lines (# starts a comment): FUNCTION: "message format": reason. Keyed
 * by function and message, not by line, so that edits of the reference do not
 * move them; an entry covers every site of that function with that message.
 * ALLOW holds the refusals no spec can reach through the harness; PENDING, in
 * the same form, the framework rules that still lack a negative case (a debt:
 * listed as such in the output, to be emptied, never a place for new rules).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *path, int line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4), noreturn));

static void die(const char *path, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (line > 0)
		fprintf(stderr, "%s:%d: ", path, line);
	else
		fprintf(stderr, "%s: ", path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "refusals: out of memory\n");
		exit(2);
	}
	return p;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die(path, 0, "%s", strerror(errno));
	size_t cap = 1 << 16, n = 0;
	char *buf = xrealloc(NULL, cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2)
			buf = xrealloc(buf, cap *= 2);
	}
	if (ferror(f))
		die(path, 0, "read error");
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* ---- tokens ---- */

typedef enum { T_ID, T_STR, T_CHR, T_NUM, T_PUNCT } tkind;

typedef struct tok {
	tkind k;
	int line;
	const char *s;
	size_t n;
} tok;

typedef struct toks {
	tok *v;
	size_t n, cap;
} toks;

static void push(toks *t, tkind k, int line, const char *s, size_t n)
{
	if (t->n == t->cap)
		t->v = xrealloc(t->v, (t->cap = t->cap ? 2 * t->cap : 1024) * sizeof *t->v);
	t->v[t->n++] = (tok){k, line, s, n};
}

/* C tokens of src, comments and preprocessor lines dropped; punctuation one character each. */
static void tokenize(const char *path, const char *src, toks *t)
{
	const char *p = src;
	int line = 1, bol = 1;
	while (*p) {
		if (*p == '\n') {
			line++, bol = 1, p++;
			continue;
		}
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			int at = line;
			for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
				line += *p == '\n';
			if (!*p)
				die(path, at, "unterminated comment");
			p += 2;
			continue;
		}
		if (*p == '#' && bol) {
			/* a refusal in a macro would go unseen: none may be there */
			const char *d = p;
			int at = line;
			while (*p && *p != '\n') {
				if (p[0] == '\\' && p[1] == '\n')
					line++, p++;
				p++;
			}
			const char *hit = strstr(d, "QCF_INVALID_PARAM");
			if (hit && hit < p)
				die(path, at, "QCF_INVALID_PARAM in a preprocessor line");
			continue;
		}
		bol = 0;
		const char *s = p;
		if (*p == '"' || *p == '\'') {
			char q = *p++;
			while (*p && *p != q && *p != '\n')
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (*p != q)
				die(path, line, "unterminated %s literal",
				    q == '"' ? "string" : "character");
			p++;
			push(t, q == '"' ? T_STR : T_CHR, line, s, (size_t)(p - s));
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			push(t, T_ID, line, s, (size_t)(p - s));
		} else if (isdigit((unsigned char)*p) ||
		           (*p == '.' && isdigit((unsigned char)p[1]))) {
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' ||
			       ((*p == '+' || *p == '-') && strchr("eEpP", p[-1])))
				p++;
			push(t, T_NUM, line, s, (size_t)(p - s));
		} else {
			push(t, T_PUNCT, line, s, 1);
			p++;
		}
	}
}

static int is(const tok *k, const char *s)
{
	return k->n == strlen(s) && memcmp(k->s, s, k->n) == 0;
}

/* ---- sites ---- */

typedef struct site {
	const char *file;
	char *function;
	char *message; /* the format's literals as written, without the quotes; "" for a bare return
	                */
	int line, last_line;
	long count;  /* -1 until the gcov text gives it */
	int allowed; /* 1: in ALLOW, 2: in PENDING */
} site;

typedef struct sites {
	site *v;
	size_t n, cap;
	size_t propagations;
} sites;

static char *dup_n(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static void add_site(sites *ss, const char *file, const tok *fn, char *message, int line,
                     int last_line)
{
	if (ss->n == ss->cap)
		ss->v = xrealloc(ss->v, (ss->cap = ss->cap ? 2 * ss->cap : 256) * sizeof *ss->v);
	ss->v[ss->n++] = (site){file, dup_n(fn->s, fn->n), message, line, last_line, -1, 0};
}

/* Index of the token that closes the bracket open at t[i] (one of "([{"), or 0. */
static size_t closing(const toks *t, size_t i)
{
	char open = t->v[i].s[0], close = open == '(' ? ')' : open == '[' ? ']' : '}';
	int level = 0;
	for (size_t j = i; j < t->n; j++) {
		if (t->v[j].k != T_PUNCT)
			continue;
		if (t->v[j].s[0] == open)
			level++;
		else if (t->v[j].s[0] == close && --level == 0)
			return j;
	}
	return 0;
}

/* Index of the token that opens the bracket closed at t[i] (")"), or (size_t)-1. */
static size_t opening(const toks *t, size_t i)
{
	int level = 0;
	for (size_t j = i + 1; j-- > 0;) {
		if (t->v[j].k != T_PUNCT)
			continue;
		if (t->v[j].s[0] == ')')
			level++;
		else if (t->v[j].s[0] == '(' && --level == 0)
			return j;
	}
	return (size_t)-1;
}

/* The top-level arguments of the call whose "(" is t[open]: starts[k] and ends[k] (exclusive). */
static int call_args(const toks *t, size_t open, size_t close, size_t *starts, size_t *ends,
                     int max)
{
	int n = 0, level = 0;
	size_t start = open + 1;
	for (size_t j = open + 1; j <= close; j++) {
		const tok *k = &t->v[j];
		if (k->k == T_PUNCT && strchr("([{", k->s[0]))
			level++;
		else if (k->k == T_PUNCT && strchr(")]}", k->s[0]) && j != close)
			level--;
		else if (level == 0 && ((k->k == T_PUNCT && k->s[0] == ',') || j == close)) {
			if (j == close && j == start && n == 0)
				break; /* no arguments */
			if (n < max)
				starts[n] = start, ends[n] = j;
			n++;
			start = j + 1;
		}
	}
	return n;
}

typedef struct detail_names {
	const tok *v[8];
	int n;
} detail_names;

/* Does [from, to) call something with one of the function's qref_detail pointers as an argument? */
static int passes_detail(const toks *t, size_t from, size_t to, const detail_names *dn)
{
	for (size_t j = from; j + 1 < to; j++) {
		if (t->v[j].k != T_ID || !is(&t->v[j + 1], "("))
			continue;
		size_t close = closing(t, j + 1);
		size_t st[32], en[32];
		int n = call_args(t, j + 1, close, st, en, 32);
		for (int a = 0; a < n && a < 32; a++)
			for (int k = 0; k < dn->n; k++)
				if (en[a] == st[a] + 1 && t->v[st[a]].k == T_ID &&
				    t->v[st[a]].n == dn->v[k]->n &&
				    memcmp(t->v[st[a]].s, dn->v[k]->s, dn->v[k]->n) == 0)
					return 1;
	}
	return 0;
}

/* An <inttypes.h> conversion macro (PRId32, PRIu64, ...): its conversion letter, else 0. */
static char pri_letter(const tok *k)
{
	return k->k == T_ID && k->n >= 5 && memcmp(k->s, "PRI", 3) == 0 && strchr("diouxX", k->s[3])
	               ? k->s[3]
	               : 0;
}

/* The literal's characters between the quotes of every T_STR token in [from, to), an
 * <inttypes.h> macro between them as its conversion letter ("%" PRId32 reads "%d"), or NULL
 * when anything else is there. */
static char *literal(const toks *t, size_t from, size_t to)
{
	size_t len = 0;
	for (size_t j = from; j < to; j++) {
		if (t->v[j].k == T_STR)
			len += t->v[j].n - 2;
		else if (pri_letter(&t->v[j]))
			len++;
		else
			return NULL;
	}
	if (from == to)
		return NULL;
	char *m = xrealloc(NULL, len + 1), *o = m;
	for (size_t j = from; j < to; j++) {
		if (t->v[j].k != T_STR) {
			*o++ = pri_letter(&t->v[j]);
			continue;
		}
		memcpy(o, t->v[j].s + 1, t->v[j].n - 2);
		o += t->v[j].n - 2;
	}
	*o = 0;
	return m;
}

static void scan_function(const char *path, const toks *t, size_t body, size_t end, const tok *fn,
                          const detail_names *dn, sites *ss)
{
	for (size_t i = body; i < end; i++) {
		const tok *k = &t->v[i];
		if (k->k == T_ID && k->n >= 9 && memcmp(k->s, "qref_fail", 9) == 0 && i + 1 < end &&
		    is(&t->v[i + 1], "(")) {
			/* qref_fail(d, STATUS, "format", ...) and its variants that name what the
			 * refusal is about first (qref_fail_attr(d, attr, STATUS, "format", ...)):
			 * the status is an argument of its own, the format the one after it */
			size_t close = closing(t, i + 1);
			if (!close)
				die(path, k->line, "%.*s: unbalanced %.*s call", (int)fn->n, fn->s,
				    (int)k->n, k->s);
			size_t st[16], en[16];
			int n = call_args(t, i + 1, close, st, en, 16);
			int status = -1;
			for (int a = 0; a < n && a < 16; a++)
				for (size_t j = st[a]; j < en[a]; j++)
					if (is(&t->v[j], "QCF_INVALID_PARAM")) {
						if (en[a] != st[a] + 1 || status >= 0)
							die(path, t->v[j].line,
							    "%.*s: %.*s with a status expression "
							    "that "
							    "names QCF_INVALID_PARAM: write the "
							    "status "
							    "alone",
							    (int)fn->n, fn->s, (int)k->n, k->s);
						status = a;
					}
			if (status >= 0) {
				char *m = status + 1 < n && status + 1 < 16
				                  ? literal(t, st[status + 1], en[status + 1])
				                  : NULL;
				if (!m)
					die(path, k->line,
					    "%.*s: %.*s(..., QCF_INVALID_PARAM, ...) without a "
					    "string "
					    "literal format after the status",
					    (int)fn->n, fn->s, (int)k->n, k->s);
				/* `return wrap(..., qref_fail(...))` over several lines: at -O0 gcc
				 * counts the whole statement on the line of its `return`, so the
				 * site starts there (unless a condition shares that line) */
				int first = k->line;
				for (size_t j = i; j > body; j--) {
					const tok *b = &t->v[j - 1];
					if (is(b, ";") || is(b, "{") || is(b, "}"))
						break;
					if (is(b, "return")) {
						if (!(j - 1 > body && is(&t->v[j - 2], ")") &&
						      t->v[j - 2].line == b->line))
							first = b->line;
						break;
					}
				}
				add_site(ss, path, fn, m, first, t->v[close].line);
			}
			i = close; /* its status token is taken */
			continue;
		}
		if (!(k->k == T_ID && is(k, "QCF_INVALID_PARAM")))
			continue;
		if (i > body && is(&t->v[i - 1], "return") && i + 1 < end &&
		    is(&t->v[i + 1], ";")) {
			/* under `if (COND)`: COND calls a helper with the detail pointer? */
			size_t r = i - 1;
			if (r > body && is(&t->v[r - 1], ")")) {
				size_t open = opening(t, r - 1);
				if (open != (size_t)-1 && open > body &&
				    is(&t->v[open - 1], "if") &&
				    passes_detail(t, open + 1, r - 1, dn)) {
					ss->propagations++;
					continue;
				}
			}
			add_site(ss, path, fn, dup_n("", 0), k->line, k->line);
			continue;
		}
		die(path, k->line,
		    "%.*s: QCF_INVALID_PARAM in a form suite/refusals/refusals.c does not classify "
		    "(qref_fail(d, QCF_INVALID_PARAM, \"...\") or return QCF_INVALID_PARAM;)",
		    (int)fn->n, fn->s);
	}
}

/* Finds the function definitions of the file and the refusal sites in their bodies. */
static void scan_file(const char *path, sites *ss)
{
	char *src = read_all(path);
	toks t = {0};
	tokenize(path, src, &t);
	size_t header = 0, cand = (size_t)-1;
	int paren = 0, eq = 0;
	for (size_t i = 0; i < t.n; i++) {
		const tok *k = &t.v[i];
		if (k->k == T_ID && is(k, "QCF_INVALID_PARAM"))
			die(path, k->line, "QCF_INVALID_PARAM outside a function");
		if (k->k != T_PUNCT) {
			/* the last name called at the top level: a macro's invocation (no
			 * semicolon after it) may come before the function's own name */
			if (k->k == T_ID && paren == 0 && i + 1 < t.n && is(&t.v[i + 1], "(") &&
			    !is(k, "__attribute__"))
				cand = i;
			continue;
		}
		switch (k->s[0]) {
		case '(': paren++; break;
		case ')': paren--; break;
		case '=': eq |= paren == 0; break;
		case ';':
			if (paren == 0)
				cand = (size_t)-1, eq = 0, header = i + 1;
			break;
		case '{': {
			size_t close = closing(&t, i);
			if (!close)
				die(path, k->line, "unbalanced braces");
			if (paren == 0 && cand != (size_t)-1 && !eq) {
				detail_names dn = {.n = 0};
				for (size_t j = header; j + 2 < i; j++)
					if (is(&t.v[j], "qref_detail") && is(&t.v[j + 1], "*") &&
					    t.v[j + 2].k == T_ID && dn.n < 8)
						dn.v[dn.n++] = &t.v[j + 2];
				scan_function(path, &t, i + 1, close, &t.v[cand], &dn, ss);
			} else {
				for (size_t j = i; j < close; j++)
					if (is(&t.v[j], "QCF_INVALID_PARAM"))
						die(path, t.v[j].line,
						    "QCF_INVALID_PARAM outside a function");
			}
			i = close;
			if (paren == 0 && cand != (size_t)-1 && !eq)
				cand = (size_t)-1, header = i + 1;
			break;
		}
		default: break;
		}
	}
	/* the tokens point into src: the sites keep copies */
	free(t.v);
	free(src);
}

/* ---- gcov text ---- */

typedef struct counts {
	char *source;
	long *v; /* by line; -1: no code */
	int n;
	long last; /* the last line read: later lines of a lower number are per-function parts */
} counts;

typedef struct gcov {
	counts *f;
	size_t n;
} gcov;

static long cur_last(const counts *c)
{
	return c ? c->last : 10000000;
}

/*
 * `gcov -t` output: "  COUNT:  LINE:text" lines, each file headed by "-:0:Source:PATH". A line
 * that more than one function shares (a macro that defines functions) is given as the sum,
 * then once per function after a "------------------" line: only the sum is taken.
 */
static void read_gcov(const char *path, gcov *g)
{
	char *text = read_all(path);
	counts *cur = NULL;
	int lineno = 0;
	for (char *p = text, *next; *p; p = next) {
		lineno++;
		char *nl = strchr(p, '\n');
		next = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = 0;
		char *q = p;
		while (*q == ' ')
			q++;
		char *c1 = strchr(q, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c1 && c2) {
			*c1 = 0;
			long ln = strtol(c1 + 1, NULL, 10);
			const char *rest = c2 + 1;
			if (ln == 0 && strncmp(rest, "Source:", 7) == 0) {
				g->f = xrealloc(g->f, (g->n + 1) * sizeof *g->f);
				cur = &g->f[g->n++];
				*cur = (counts){strdup(rest + 7), NULL, 0, 0};
			} else if (ln > cur_last(cur)) {
				long count;
				if (strcmp(q, "-") == 0)
					count = -1;
				else if (strcmp(q, "#####") == 0 || strcmp(q, "=====") == 0)
					count = 0;
				else {
					char *e;
					count = strtol(q, &e, 10);
					if (e == q || (*e && strcmp(e, "*") != 0))
						die(path, lineno, "unexpected count '%s'", q);
				}
				if (ln > 10000000)
					die(path, lineno, "line number %ld", ln);
				if (ln >= cur->n) {
					cur->v =
					        xrealloc(cur->v, (size_t)(ln + 1) * sizeof *cur->v);
					for (int j = cur->n; j <= ln; j++)
						cur->v[j] = -1;
					cur->n = (int)ln + 1;
				}
				cur->v[ln] = count;
				cur->last = ln;
			}
		}
	}
	free(text);
}

static const counts *counts_of(const gcov *g, const char *file)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->f[i].source, file) == 0)
			return &g->f[i];
	return NULL;
}

/* ---- allowlist ---- */

typedef struct allow {
	const char *path;
	char *function, *message;
	int line, used, kind;
} allow;

/* Appends the entries of path to a[0..*n); kind is stored with each. */
static allow *read_allow(const char *path, int kind, allow *a, size_t *n_io)
{
	char *text = read_all(path);
	size_t n = *n_io;
	int lineno = 0;
	for (char *p = text, *next; *p; p = next) {
		lineno++;
		char *nl = strchr(p, '\n');
		next = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != '#') {
			char *f = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			if (p == f || strncmp(p, ": \"", 3) != 0)
				die(path, lineno, "expected FUNCTION: \"message format\": reason");
			*p = 0;
			char *m = p + 3, *e = m;
			while (*e && *e != '"')
				e += e[0] == '\\' && e[1] ? 2 : 1;
			if (*e != '"' || e[1] != ':')
				die(path, lineno,
				    "expected the message in double quotes, then ': reason'");
			*e = 0;
			char *reason = e + 2;
			while (*reason == ' ')
				reason++;
			if (strlen(reason) < 10)
				die(path, lineno, "%s: \"%s\": every entry needs its reason", f, m);
			a = xrealloc(a, (n + 1) * sizeof *a);
			a[n++] = (allow){path, strdup(f), strdup(m), lineno, 0, kind};
		}
	}
	free(text);
	*n_io = n;
	return a;
}

/* ---- main ---- */

static void free_sites(sites *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		free(ss->v[i].function);
		free(ss->v[i].message);
	}
	free(ss->v);
}

static void usage(void)
{
	fprintf(stderr, "usage: refusals sites FILE.c...\n"
	                "       refusals check --allow ALLOW [--pending PENDING] --gcov GCOV_TEXT "
	                "FILE.c...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	const char *allow_path = NULL, *pending_path = NULL, *gcov_path = NULL;
	int check = strcmp(argv[1], "check") == 0, first = 2;
	if (!check && strcmp(argv[1], "sites") != 0)
		usage();
	while (check && first + 1 < argc && argv[first][0] == '-') {
		if (strcmp(argv[first], "--allow") == 0)
			allow_path = argv[first + 1];
		else if (strcmp(argv[first], "--pending") == 0)
			pending_path = argv[first + 1];
		else if (strcmp(argv[first], "--gcov") == 0)
			gcov_path = argv[first + 1];
		else
			usage();
		first += 2;
	}
	if (first >= argc || (check && (!allow_path || !gcov_path)))
		usage();
	sites ss = {0};
	for (int i = first; i < argc; i++)
		scan_file(argv[i], &ss);
	if (!check) {
		for (size_t i = 0; i < ss.n; i++)
			printf("%s:%d: %s: \"%s\"\n", ss.v[i].file, ss.v[i].line, ss.v[i].function,
			       ss.v[i].message);
		printf("refusals: %zu sites, %zu propagations of a helper's refusal\n", ss.n,
		       ss.propagations);
		free_sites(&ss);
		return 0;
	}

	gcov g = {0};
	read_gcov(gcov_path, &g);
	size_t n_allow = 0;
	allow *al = read_allow(allow_path, 1, NULL, &n_allow);
	if (pending_path)
		al = read_allow(pending_path, 2, al, &n_allow);
	size_t exercised = 0, allowed = 0, pending = 0, never = 0, problems = 0;
	for (size_t i = 0; i < ss.n; i++) {
		site *s = &ss.v[i];
		const counts *c = counts_of(&g, s->file);
		if (!c)
			die(gcov_path, 0, "no counts for %s (gcov -t over every file checked)",
			    s->file);
		for (int l = s->line; l <= s->last_line && l < c->n; l++)
			if (c->v[l] > s->count)
				s->count = c->v[l];
		if (s->count < 0)
			die(s->file, s->line, "%s: gcov has no count for the refusal's lines",
			    s->function);
		for (size_t a = 0; a < n_allow; a++)
			if (strcmp(al[a].function, s->function) == 0 &&
			    strcmp(al[a].message, s->message) == 0)
				s->allowed = al[a].kind, al[a].used = 1;
		printf("%s:%d: %s: %ld%s: \"%s\"\n", s->file, s->line, s->function, s->count,
		       s->allowed == 1   ? " (allowlisted)"
		       : s->allowed == 2 ? " (pending: no negative case yet)"
		                         : "",
		       s->message);
		if (s->count > 0 && !s->allowed)
			exercised++;
		else if (s->allowed == 1)
			allowed++;
		else if (s->allowed == 2)
			pending++;
		else
			never++;
	}
	for (size_t i = 0; i < ss.n; i++) {
		const site *s = &ss.v[i];
		if (s->count == 0 && !s->allowed) {
			fprintf(stderr, "%s:%d: %s: refusal never exercised: \"%s\"\n", s->file,
			        s->line, s->function, s->message);
			problems++;
		} else if (s->count > 0 && s->allowed) {
			fprintf(stderr,
			        "%s:%d: %s: listed refusal is exercised (%ld times): drop it "
			        "from %s: \"%s\"\n",
			        s->file, s->line, s->function, s->count,
			        s->allowed == 1 ? allow_path : pending_path, s->message);
			problems++;
		}
	}
	for (size_t a = 0; a < n_allow; a++)
		if (!al[a].used) {
			fprintf(stderr, "%s:%d: %s: \"%s\" names no refusal site\n", al[a].path,
			        al[a].line, al[a].function, al[a].message);
			problems++;
		}
	printf("refusals: %zu sites: %zu exercised, %zu allowlisted, %zu pending, %zu never "
	       "exercised\n",
	       ss.n, exercised, allowed, pending, never);
	free_sites(&ss);
	for (size_t i = 0; i < g.n; i++) {
		free(g.f[i].source);
		free(g.f[i].v);
	}
	free(g.f);
	for (size_t a = 0; a < n_allow; a++) {
		free(al[a].function);
		free(al[a].message);
	}
	free(al);
	return problems ? 1 : 0;
}
