/*
 * Applies one variant definition (reference/variants/README.md) to its reference
 * source file.
 *
 *   variant VAR OUT.c          writes the changed copy of the file VAR names to OUT.c
 *   variant --check VAR...     checks that every VAR parses and applies, writes nothing
 *   variant --field NAME VAR   prints a field: description, file, as, specs (when absent:
 *                              the specs of the ops the changed code can reach, specs_of),
 *                              ops (the ops the changed code can reach, ops_of: "*" for all)
 *   variant --table VAR...     writes the catalogue as C (harness/src/judge/hypotheses.h's
 *                              qc_variant_table): each variant's id, description, as, ops
 *
 * A definition is a header of "key: value" lines (and # comments), then
 *   @@@ original
 *   <whole lines of the source, exactly as they are>
 *   @@@ variant
 *   <the lines that replace them>
 *   @@@ end
 * The original must occur exactly once in the file, so that a change of the
 * reference that moves or rewrites it is an error here and never a variant that
 * silently stops changing anything. Errors: "VAR:LINE: message", exit 2.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct variant {
	const char *path;
	char *text;
	char *description, *file, *specs, *as;
	char *original, *replacement;
} variant;

static void fail(const char *path, int line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4), noreturn));

static void fail(const char *path, int line, const char *fmt, ...)
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

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail(path, 0, "%s", strerror(errno));
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			fail(path, 0, "out of memory");
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad)
		fail(path, 0, "read error");
	buf[n] = 0;
	if (strlen(buf) != n)
		fail(path, 0, "contains a NUL byte");
	if (len)
		*len = n;
	return buf;
}

static char *dup_range(const char *a, const char *b)
{
	char *s = malloc((size_t)(b - a) + 1);
	if (!s) {
		fputs("out of memory\n", stderr);
		exit(2);
	}
	memcpy(s, a, (size_t)(b - a));
	s[b - a] = 0;
	return s;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

/* Occurrences of needle in hay, overlapping ones included. */
static int count(const char *hay, const char *needle)
{
	int k = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		k++;
	return k;
}

static void parse(const char *path, variant *m)
{
	memset(m, 0, sizeof *m);
	m->path = path;
	m->text = read_all(path, NULL);
	enum { HEADER, ORIGINAL, VARIANT, DONE } state = HEADER;
	const char *body = NULL;
	int line = 0, body_line = 0;
	for (char *p = m->text; *p;) {
		char *eol = strchr(p, '\n');
		if (!eol)
			fail(path, line + 1, "the last line has no newline");
		line++;
		char *next = eol + 1;
		int marker = strncmp(p, "@@@", 3) == 0;
		if (marker) {
			*eol = 0;
			char *what = trim(p + 3);
			if (state == HEADER && strcmp(what, "original") == 0) {
				state = ORIGINAL;
				body = next;
				body_line = line + 1;
			} else if (state == ORIGINAL && strcmp(what, "variant") == 0) {
				m->original = dup_range(body, p);
				state = VARIANT;
				body = next;
			} else if (state == VARIANT && strcmp(what, "end") == 0) {
				m->replacement = dup_range(body, p);
				state = DONE;
			} else {
				fail(path, line, "unexpected marker '@@@ %s'", what);
			}
		} else if (state == HEADER) {
			*eol = 0;
			char *s = trim(p);
			if (*s && *s != '#') {
				char *colon = strchr(s, ':');
				if (!colon)
					fail(path, line, "expected 'key: value'");
				*colon = 0;
				char *key = trim(s), *val = trim(colon + 1);
				char **slot = !strcmp(key, "description") ? &m->description
				              : !strcmp(key, "file")      ? &m->file
				              : !strcmp(key, "specs")     ? &m->specs
				              : !strcmp(key, "as")        ? &m->as
				                                          : NULL;
				if (!slot)
					fail(path, line,
					     "unknown key '%s' (description, file, specs, as)",
					     key);
				if (*slot)
					fail(path, line, "'%s' given twice", key);
				if (!*val)
					fail(path, line, "'%s' is empty", key);
				*slot = val;
			}
		} else if (state == DONE) {
			*eol = 0;
			if (*trim(p))
				fail(path, line, "text after '@@@ end'");
		}
		p = next;
	}
	if (state != DONE)
		fail(path, line,
		     "expected '@@@ original', '@@@ variant' and '@@@ end', in that order");
	if (!m->description)
		fail(path, 0, "no 'description:' line");
	if (!m->file)
		fail(path, 0, "no 'file:' line");
	if (!*m->original)
		fail(path, body_line, "the original snippet is empty");
	if (strcmp(m->original, m->replacement) == 0)
		fail(path, body_line, "the variant is the original");
	/* the plugin is linked from reference/plugin.o and every other reference object */
	size_t fl = strlen(m->file);
	if (strncmp(m->file, "reference/", 10) != 0 || strchr(m->file + 10, '/') || fl < 13 ||
	    strcmp(m->file + fl - 2, ".c") != 0 || strcmp(m->file, "reference/plugin.c") == 0)
		fail(path, 0,
		     "file must be one of the reference's library sources, reference/<name>.c "
		     "(not plugin.c), got '%s'",
		     m->file);
}

/* ---- the ops and specs a variant can change ----------------------------------------------------
 */

#define MAX_FILES 128
#define MAX_NAMES 512

typedef struct src_file {
	char path[300];
	char *text;
	char *names[MAX_NAMES]; /* non-static functions it defines */
	int n_names;
	int affected;
} src_file;

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* An identifier at p, copied to out (at most 63 characters); the end, or NULL. */
static const char *ident(const char *p, char *out)
{
	size_t n = 0;
	while (ident_char(*p) && n < 63)
		out[n++] = *p++;
	out[n] = 0;
	return n ? p : NULL;
}

/* p past the word w and the whitespace after it, or NULL. */
static const char *word(const char *p, const char *w)
{
	size_t n = strlen(w);
	return strncmp(p, w, n) == 0 && !ident_char(p[n]) ? skip_ws(p + n) : NULL;
}

/* p past a designator ".name =" and the whitespace after it, or NULL. */
static const char *field(const char *p, const char *name)
{
	if (*p != '.' || !(p = word(skip_ws(p + 1), name)) || *p != '=')
		return NULL;
	return skip_ws(p + 1);
}

/* p past a string literal "name" whose text is an identifier (copied to out), or NULL. */
static const char *quoted(const char *p, char *out)
{
	if (*p++ != '"' || !(p = ident(p, out)) || *p++ != '"')
		return NULL;
	return skip_ws(p);
}

/* The hooks of an op's row (reference/op.h): the functions its .kernel, .real and .terms
 * name. */
#define N_HOOKS 3
static const char *const hook_fields[N_HOOKS] = {"kernel", "real", "terms"};

/*
 * An op's row at p, {.schema = {.semantics = "sem", .op = "OP", ...}, .kernel = fn, ...}
 * (possibly over lines): sem, op, the function of each hook ("" for none) and the end of the
 * row, or NULL.
 */
static const char *row_at(const char *p, char *sem, char *op, char (*hooks)[64])
{
	if (*p != '{' || !(p = field(skip_ws(p + 1), "schema")) || *p != '{' ||
	    !(p = field(skip_ws(p + 1), "semantics")) || !(p = quoted(p, sem)) || *p != ',' ||
	    !(p = field(skip_ws(p + 1), "op")) || !(p = quoted(p, op)))
		return NULL;
	for (int h = 0; h < N_HOOKS; h++)
		hooks[h][0] = 0;
	for (int depth = 2; *p; p++) {
		if (*p == '"') {
			while (p[1] && p[1] != '"')
				p += 1 + (p[1] == '\\' && p[2]);
			if (p[1])
				p++;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}' && --depth == 0) {
			return p + 1;
		} else if (*p == '.' && depth == 1) {
			for (int h = 0; h < N_HOOKS; h++) {
				const char *f = field(p, hook_fields[h]);
				if (f)
					ident(f, hooks[h]);
			}
		}
	}
	return NULL;
}

/* Is the word at p (in text) the value of a hook of an op's row, ".kernel = p"? */
static int hook_value(const char *text, const char *p)
{
	const char *b = p;
	while (b > text && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n'))
		b--;
	if (b == text || *--b != '=')
		return 0;
	while (b > text && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n'))
		b--;
	const char *e = b;
	while (b > text && ident_char(b[-1]))
		b--;
	for (int h = 0; h < N_HOOKS; h++)
		if (b > text && b[-1] == '.' && (size_t)(e - b) == strlen(hook_fields[h]) &&
		    !strncmp(b, hook_fields[h], (size_t)(e - b)))
			return 1;
	return 0;
}

/* Does text mention name as a whole word other than as a hook of an op's row? */
static int calls(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if ((p > text && ident_char(p[-1])) || ident_char(p[n]))
			continue;
		if (!hook_value(text, p))
			return 1;
	}
	return 0;
}

/* The non-static functions a source defines: a line at column 0 that is not static, a
 * comment, a directive or a prototype, with the name before its first '('. */
static void exported(src_file *f)
{
	for (char *l = f->text; *l;) {
		size_t len = strcspn(l, "\n");
		char first = *l;
		if (len && first != ' ' && first != '\t' && first != '#' && first != '/' &&
		    first != '*' && first != '}' && first != '{' && strncmp(l, "static", 6) != 0 &&
		    l[len - 1] != ';') {
			char *paren = memchr(l, '(', len);
			if (paren) {
				char *e = paren;
				while (e > l && e[-1] == ' ')
					e--;
				char *b = e;
				while (b > l && ident_char(b[-1]))
					b--;
				if (e > b && f->n_names < MAX_NAMES)
					f->names[f->n_names++] = dup_range(b, e);
			}
		}
		l += len + (l[len] == '\n');
	}
}

typedef struct opset {
	char sem[MAX_NAMES][64], op[MAX_NAMES][64];
	int n;
} opset;

static void op_add(opset *s, const char *sem, const char *op)
{
	for (int k = 0; k < s->n; k++)
		if (!strcmp(s->sem[k], sem) && !strcmp(s->op[k], op))
			return;
	if (s->n < MAX_NAMES) {
		snprintf(s->sem[s->n], 64, "%s", sem);
		snprintf(s->op[s->n], 64, "%s", op);
		s->n++;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The value of a top-level "key: value" line of a spec, or "". */
static void spec_key(const char *text, const char *key, char *out, size_t size)
{
	size_t n = strlen(key);
	out[0] = 0;
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		if (len > n + 1 && !strncmp(l, key, n) && l[n] == ':') {
			const char *v = l + n + 1;
			while (*v == ' ')
				v++;
			size_t vl = (size_t)(l + len - v);
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
				vl--;
			snprintf(out, size, "%.*s", (int)vl, v);
			return;
		}
		l += len + (l[len] == '\n');
	}
}

/* Appends dir's *.yaml (recursively) whose semantics and op are in ops. */
static void find_specs(const char *dir, const opset *ops, char ***list, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			find_specs(path, ops, list, n, cap);
			continue;
		}
		size_t pl = strlen(path);
		if (pl < 5 || strcmp(path + pl - 5, ".yaml") != 0)
			continue;
		char *text = read_all(path, NULL);
		char sem[64], op[64];
		spec_key(text, "semantics", sem, sizeof sem);
		spec_key(text, "op", op, sizeof op);
		free(text);
		for (int k = 0; k < ops->n; k++)
			if (!strcmp(ops->sem[k], sem) && !strcmp(ops->op[k], op)) {
				if (*n == *cap) {
					*cap = *cap ? *cap * 2 : 64;
					*list = realloc(*list, *cap * sizeof **list);
					if (!*list)
						fail(path, 0, "out of memory");
				}
				(*list)[(*n)++] = dup_range(path, path + pl);
				break;
			}
	}
	closedir(d);
}

/*
 * The specs a mutation of m->file can change: every spec of every op whose kernel can run
 * the mutated code. The affected files are the mutated one and, transitively, every
 * reference file that calls a function they define (a mention other than as a hook of an
 * op's row, reference/op.h); the ops are the rows of the affected files, and the rows
 * elsewhere one of whose hooks an affected file defines. When plugin.c is affected (the
 * dispatcher, or the functions every kernel uses) or no op is found, every spec. A `specs:`
 * line overrides this.
 */
static int ops_of(const variant *m, opset *ops)
{
	static src_file files[MAX_FILES];
	int nf = 0, self = -1;
	DIR *d = opendir("reference");
	if (!d)
		fail("reference", 0, "%s", strerror(errno));
	struct dirent *e;
	while ((e = readdir(d)) && nf < MAX_FILES) {
		size_t l = strlen(e->d_name);
		if (l < 3 || strcmp(e->d_name + l - 2, ".c") != 0)
			continue;
		src_file *f = &files[nf];
		memset(f, 0, sizeof *f);
		snprintf(f->path, sizeof f->path, "reference/%s", e->d_name);
		f->text = read_all(f->path, NULL);
		exported(f);
		if (!strcmp(f->path, m->file))
			self = nf;
		nf++;
	}
	closedir(d);
	if (self < 0)
		fail(m->path, 0, "%s not found", m->file);
	files[self].affected = 1;
	for (int changed = 1; changed;) {
		changed = 0;
		for (int g = 0; g < nf; g++)
			for (int f = 0; f < nf && !files[g].affected; f++)
				for (int k = 0; files[f].affected && k < files[f].n_names; k++)
					if (f != g && calls(files[g].text, files[f].names[k])) {
						files[g].affected = changed = 1;
						break;
					}
	}
	int all = 0;
	ops->n = 0;
	for (int g = 0; g < nf; g++)
		all |= files[g].affected && !strcmp(files[g].path, "reference/plugin.c");
	for (int g = 0; g < nf && !all; g++)
		for (const char *l = strchr(files[g].text, '{'); l; l = strchr(l + 1, '{')) {
			char sem[64], op[64], hooks[N_HOOKS][64];
			if (!row_at(l, sem, op, hooks))
				continue;
			int take = files[g].affected;
			for (int f = 0; f < nf && !take; f++)
				for (int k = 0; files[f].affected && k < files[f].n_names; k++)
					for (int h = 0; h < N_HOOKS; h++)
						if (!strcmp(files[f].names[k], hooks[h]))
							take = 1;
			if (take)
				op_add(ops, sem, op);
		}
	for (int g = 0; g < nf; g++) {
		for (int k = 0; k < files[g].n_names; k++)
			free(files[g].names[k]);
		free(files[g].text);
	}
	return all || !ops->n;
}

/* The specs a variant runs (its `specs:` line, or every spec of the ops it can change). */
static char *specs_of(const variant *m)
{
	if (m->specs)
		return strdup(m->specs);
	static opset ops;
	if (ops_of(m, &ops))
		return strdup("specs");
	char **list = NULL;
	size_t n = 0, cap = 0;
	find_specs("specs", &ops, &list, &n, &cap);
	if (!n)
		fail(m->path, 0, "no spec runs the ops of %s", m->file);
	qsort(list, n, sizeof *list, cmp_str);
	size_t total = 1;
	for (size_t k = 0; k < n; k++)
		total += strlen(list[k]) + 1;
	char *out = malloc(total);
	if (!out)
		fail(m->path, 0, "out of memory");
	out[0] = 0;
	for (size_t k = 0; k < n; k++) {
		strcat(out, k ? " " : "");
		strcat(out, list[k]);
		free(list[k]);
	}
	free(list);
	return out;
}

/* Prints the ops a variant can change, "semantics/OP" separated by spaces, or "*". */
static void print_ops(FILE *f, const variant *m)
{
	static opset ops;
	if (ops_of(m, &ops)) {
		fputs("*", f);
		return;
	}
	for (int k = 0; k < ops.n; k++)
		fprintf(f, "%s%s/%s", k ? " " : "", ops.sem[k], ops.op[k]);
}

/* s as a C string literal. */
static void c_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\%03o", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The id of a definition: its file name without the directory and ".var". */
static void id_of(const char *path, char *out, size_t size)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".var"))
		n -= 4;
	snprintf(out, size, "%.*s", (int)n, b);
}

/* The changed source, or exit 2. */
static char *apply(const variant *m)
{
	size_t len;
	char *src = read_all(m->file, &len);
	int k = count(src, m->original);
	if (k != 1)
		fail(m->path, 0,
		     "the original snippet occurs %d times in %s (must be exactly once)", k,
		     m->file);
	char *at = strstr(src, m->original);
	size_t lo = strlen(m->original), lr = strlen(m->replacement);
	char *out = malloc(len - lo + lr + 1);
	if (!out)
		fail(m->path, 0, "out of memory");
	size_t pre = (size_t)(at - src);
	memcpy(out, src, pre);
	memcpy(out + pre, m->replacement, lr);
	memcpy(out + pre + lr, at + lo, len - pre - lo + 1);
	free(src);
	return out;
}

static void variant_free(variant *m)
{
	free(m->text);
	free(m->original);
	free(m->replacement);
	memset(m, 0, sizeof *m);
}

static void usage(void)
{
	fputs("usage: variant VAR OUT.c | variant --check VAR... | variant --field "
	      "description|file|as|specs|ops VAR | variant --table VAR...\n",
	      stderr);
	exit(2);
}

/* The catalogue as C, in the order given (the Makefile sorts the definitions). */
static void table(int n, char **paths)
{
	printf("/* Generated by reference/variants/variant.c from the definitions in "
	       "reference/variants/. */\n"
	       "#include \"judge/hypotheses.h\"\n\n"
	       "const qc_variant_def qc_variant_table[] = {\n");
	for (int i = 0; i < n; i++) {
		variant m;
		parse(paths[i], &m);
		free(apply(&m));
		char id[256];
		id_of(paths[i], id, sizeof id);
		printf("\t{");
		c_string(stdout, id);
		printf(",\n\t ");
		c_string(stdout, m.description);
		printf(",\n\t ");
		if (m.as)
			c_string(stdout, m.as);
		else
			printf("NULL");
		printf(",\n\t \"");
		print_ops(stdout, &m);
		printf("\"},\n");
		variant_free(&m);
	}
	printf("};\n\nconst int qc_variant_count = %d;\n", n);
}

int main(int argc, char **argv)
{
	variant m;
	if (argc >= 2 && strcmp(argv[1], "--check") == 0) {
		if (argc < 3)
			usage();
		for (int i = 2; i < argc; i++) {
			parse(argv[i], &m);
			free(apply(&m));
			variant_free(&m);
		}
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--table") == 0) {
		table(argc - 2, argv + 2);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
	}
	if (argc == 4 && strcmp(argv[1], "--field") == 0) {
		parse(argv[3], &m);
		if (!strcmp(argv[2], "specs")) {
			char *v = specs_of(&m); /* malloc'd */
			printf("%s\n", v);
			free(v);
		} else if (!strcmp(argv[2], "ops")) {
			print_ops(stdout, &m);
			printf("\n");
		} else if (!strcmp(argv[2], "description") || !strcmp(argv[2], "file") ||
		           !strcmp(argv[2], "as")) {
			const char *v = !strcmp(argv[2], "file") ? m.file
			                : !strcmp(argv[2], "as") ? m.as
			                                         : m.description;
			printf("%s\n", v ? v : "");
		} else {
			usage();
		}
		variant_free(&m);
		return 0;
	}
	if (argc != 3 || argv[1][0] == '-')
		usage();
	parse(argv[1], &m);
	char *out = apply(&m);
	/* unchanged: keep the file's time, so that make recompiles nothing */
	FILE *f = fopen(argv[2], "rb");
	if (f) {
		fclose(f);
		char *old = read_all(argv[2], NULL);
		int same = strcmp(old, out) == 0;
		free(old);
		if (same) {
			free(out);
			variant_free(&m);
			return 0;
		}
	}
	f = fopen(argv[2], "w");
	if (!f)
		fail(argv[2], 0, "%s", strerror(errno));
	int bad = fputs(out, f) < 0;
	bad |= fclose(f) != 0;
	if (bad) {
		remove(argv[2]);
		fail(argv[2], 0, "write error");
	}
	free(out);
	variant_free(&m);
	return 0;
}
