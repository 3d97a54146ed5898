/*
 * The harness's data flows one way (harness/src/README.md): its stages, in the order below, each
 * include headers of their own folder and of the stages before them, never of a later one, so
 * there is no circle and a reader finds any arrow of the pipeline by its folder's name.
 *
 * Over harness/src/<folder>/ *.c and *.h:
 *  - every folder is a stage of STAGES (a new folder has to be placed in the order);
 *  - every include of a harness header names its folder ("judge/compare.h"), and every
 *    include of the reference names it ("reference/qref.h");
 *  - no file includes a header of a later stage, except the arrows of KNOWN_BACK_ARROWS,
 *    which are listed exactly: one that disappears has to leave the list too, so the list
 *    only shrinks.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qct.h"

/* Bottom first. cmd/ holds main() and one file per command: it drives the stages and may
 * include any of them. */
static const char *const STAGES[] = {"base",     "spec",    "cases", "run",   "judge", "report",
                                     "pipeline", "offline", "gate",  "tools", "cmd"};
#define N_STAGES ((int)(sizeof STAGES / sizeof STAGES[0]))

/* "file -> header" arrows from a stage to a later one, still to be taken out. */
static const char *const KNOWN_BACK_ARROWS[] = {
        NULL,
};

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static int stage_rank(const char *name, size_t len)
{
	for (int i = 0; i < N_STAGES; i++)
		if (strlen(STAGES[i]) == len && !strncmp(STAGES[i], name, len))
			return i;
	return -1;
}

typedef struct arrows {
	char **v; /* "file -> header" (and "file: message") */
	int n, cap;
} arrows;

static void add(arrows *a, const char *fmt, const char *x, const char *y)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->v = realloc(a->v, (size_t)a->cap * sizeof *a->v);
		CU_ASSERT_FATAL(a->v != NULL);
	}
	char buf[512];
	snprintf(buf, sizeof buf, fmt, x, y);
	a->v[a->n++] = strdup(buf);
}

static void arrows_free(arrows *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* The includes of one file (rel: its path under the root, as "judge/compare.c"). */
/* The header of the next `#include "..."` at or after *cur (a line of its own), or NULL; the
 * text is cut in place and *cur moves past the line. */
static const char *next_include(char **cur)
{
	for (char *line = *cur; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		*cur = next;
		char *p = line + strspn(line, " \t");
		if (*p == '#') {
			p += 1 + strspn(p + 1, " \t");
			if (!strncmp(p, "include", 7)) {
				p += 7 + strspn(p + 7, " \t");
				char *end = *p == '"' ? strchr(p + 1, '"') : NULL;
				if (end) {
					*end = '\0';
					return p + 1;
				}
			}
		}
		line = next;
	}
	*cur = NULL;
	return NULL;
}

static void scan_file(const char *root, const char *rel, int rank, arrows *back, arrows *bad)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	char *text = qct_read_file(path);
	if (!text) {
		add(bad, "%s: cannot be read%s", rel, "");
		return;
	}
	char *cur = text;
	for (const char *h; (h = next_include(&cur));) {
		const char *slash = strchr(h, '/');
		char there[1100];
		int r = slash ? stage_rank(h, (size_t)(slash - h)) : -1;
		if (!slash) {
			/* a header of the harness or the reference without its folder */
			int found = 0;
			for (int i = 0; i < N_STAGES && !found; i++) {
				snprintf(there, sizeof there, "%s/%s/%s", root, STAGES[i], h);
				found = exists(there);
			}
			snprintf(there, sizeof there, "%s/../../reference/%s", root, h);
			if (found || exists(there))
				add(bad, "%s: includes \"%s\" without its folder", rel, h);
		} else if (r > rank) {
			add(back, "%s -> %s", rel, h);
		}
	}
	free(text);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of the harness's tree at root (harness/src): its arrows to later stages into back,
 * the rest of what is wrong into bad. */
static void scan_tree(const char *root, arrows *back, arrows *bad)
{
	DIR *d = opendir(root);
	CU_ASSERT_FATAL(d != NULL);
	arrows names = {0};
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			add(&names, "%s%s", e->d_name, "");
	closedir(d);
	qsort(names.v, (size_t)names.n, sizeof *names.v, by_name);
	for (int i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", root, n);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			size_t len = strlen(n);
			if (len > 2 && (!strcmp(n + len - 2, ".c") || !strcmp(n + len - 2, ".h")))
				add(bad, "%s: a source outside the stage folders%s", n, "");
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		int rank = stage_rank(n, strlen(n));
		if (rank < 0) {
			add(bad, "%s/: a folder that is not a stage of the order (test_layers.c)%s",
			    n, "");
			continue;
		}
		DIR *sd = opendir(path);
		if (!sd)
			continue;
		arrows files = {0};
		for (struct dirent *e; (e = readdir(sd));) {
			size_t len = strlen(e->d_name);
			if (len > 2 && e->d_name[0] != '.' &&
			    (!strcmp(e->d_name + len - 2, ".c") ||
			     !strcmp(e->d_name + len - 2, ".h")))
				add(&files, "%s/%s", n, e->d_name);
		}
		closedir(sd);
		qsort(files.v, (size_t)files.n, sizeof *files.v, by_name);
		for (int k = 0; k < files.n; k++)
			scan_file(root, files.v[k], rank, back, bad);
		arrows_free(&files);
	}
	arrows_free(&names);
}

static int listed(const char *arrow)
{
	for (int i = 0; KNOWN_BACK_ARROWS[i]; i++)
		if (!strcmp(KNOWN_BACK_ARROWS[i], arrow))
			return 1;
	return 0;
}

static void test_one_way(void)
{
	char root[1024];
	snprintf(root, sizeof root, "%s", "harness/src");
	arrows back = {0}, bad = {0};
	scan_tree(root, &back, &bad);
	for (int i = 0; i < bad.n; i++)
		fprintf(stderr, "\n  %s", bad.v[i]);
	CU_ASSERT_EQUAL(bad.n, 0);
	int unlisted = 0, gone = 0;
	for (int i = 0; i < back.n; i++)
		if (!listed(back.v[i])) {
			fprintf(stderr, "\n  back arrow: %s (a stage includes a later stage)",
			        back.v[i]);
			unlisted++;
		}
	for (int i = 0; KNOWN_BACK_ARROWS[i]; i++) {
		int seen = 0;
		for (int k = 0; k < back.n && !seen; k++)
			seen = !strcmp(back.v[k], KNOWN_BACK_ARROWS[i]);
		if (!seen) {
			fprintf(stderr, "\n  %s is gone: take it out of KNOWN_BACK_ARROWS",
			        KNOWN_BACK_ARROWS[i]);
			gone++;
		}
	}
	CU_ASSERT_EQUAL(unlisted, 0);
	CU_ASSERT_EQUAL(gone, 0);
	arrows_free(&back);
	arrows_free(&bad);
}

/*
 * The reference's files (one folder, bare includes) have no circle either: a file X.c or X.h
 * that includes Y.h depends on Y (Y.c and Y.h); no file may depend on itself through others.
 * Returns 1 and the circle in why ("dtype -> ggml -> dtype"), or 0.
 */
#define MAX_UNITS 128

/* The unit named by the first len bytes of name, or units when there is none. */
static int unit_of(char (*names)[64], int units, const char *name, size_t len)
{
	int k = 0;
	while (k < units && !(strlen(names[k]) == len && !strncmp(names[k], name, len)))
		k++;
	return k;
}

static int reference_circle(const char *dir, char *why, size_t n)
{
	char names[MAX_UNITS][64];
	int units = 0;
	static unsigned char dep[MAX_UNITS][MAX_UNITS];
	memset(dep, 0, sizeof dep);
	DIR *d = opendir(dir);
	CU_ASSERT_FATAL(d != NULL);
	struct dirent *e;
	char *files[2 * MAX_UNITS];
	int nf = 0;
	while ((e = readdir(d)) && nf < 2 * MAX_UNITS) {
		size_t len = strlen(e->d_name);
		if (len > 2 && len < 64 && e->d_name[len - 2] == '.' &&
		    (e->d_name[len - 1] == 'c' || e->d_name[len - 1] == 'h'))
			files[nf++] = strdup(e->d_name);
	}
	closedir(d);
	/* a unit per stem */
	for (int i = 0; i < nf; i++) {
		size_t len = strlen(files[i]) - 2;
		if (unit_of(names, units, files[i], len) == units && units < MAX_UNITS)
			snprintf(names[units++], sizeof names[0], "%.*s", (int)len, files[i]);
	}
	for (int i = 0; i < nf; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		char *text = qct_read_file(path), *cur = text;
		size_t len = strlen(files[i]) - 2;
		int from = 0;
		while (from < units &&
		       !(strlen(names[from]) == len && !strncmp(names[from], files[i], len)))
			from++;
		for (const char *h; text && (h = next_include(&cur));) {
			if (!strncmp(h, "reference/", 10))
				h += 10;
			size_t hl = strlen(h);
			if (hl < 3 || strcmp(h + hl - 2, ".h") || strchr(h, '/'))
				continue;
			int to = unit_of(names, units, h, hl - 2);
			if (to < units && to != from)
				dep[from][to] = 1;
		}
		free(text);
		free(files[i]);
	}
	/* a depth-first walk: a unit met again while on the path closes a circle */
	int state[MAX_UNITS] = {0}, path[MAX_UNITS], next[MAX_UNITS], depth;
	for (int root = 0; root < units; root++) {
		if (state[root])
			continue;
		depth = 0;
		path[0] = root, next[0] = 0, state[root] = 1;
		while (depth >= 0) {
			int u = path[depth], v = next[depth]++;
			if (v == units) {
				state[u] = 2, depth--;
				continue;
			}
			if (!dep[u][v])
				continue;
			if (state[v] == 1) {
				size_t at = 0;
				int k = 0;
				while (path[k] != v)
					k++;
				for (; k <= depth; k++)
					at += (size_t)snprintf(why + at, at < n ? n - at : 0,
					                       "%s -> ", names[path[k]]);
				snprintf(why + (at < n ? at : n - 1), at < n ? n - at : 1, "%s",
				         names[v]);
				return 1;
			}
			if (state[v] == 0) {
				state[v] = 1, depth++;
				path[depth] = v, next[depth] = 0;
			}
		}
	}
	return 0;
}

static void test_reference_no_circle(void)
{
	char why[512] = "";
	int circle = reference_circle("reference", why, sizeof why);
	if (circle)
		fprintf(stderr, "\n  the reference's files depend on each other: %s", why);
	CU_ASSERT_EQUAL(circle, 0);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdir(path, 0755);
	*slash = '/';
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* The checker finds each kind of fault in a small tree of its own. */
static void test_checker_finds_faults(void)
{
	const char *tmp = qct_tmpdir();
	put(tmp, "base/util.h", "/* bottom */\n");
	put(tmp, "spec/spec.h", "#include \"base/util.h\"\n");
	put(tmp, "judge/compare.h", "#include \"spec/spec.h\"\n");
	/* spec includes judge: a later stage */
	put(tmp, "spec/spec.c", "#include \"spec/spec.h\"\n  #  include \"judge/compare.h\"\n");
	/* a harness header without its folder */
	put(tmp, "judge/compare.c", "#include <stdio.h>\n#include \"compare.h\"\n");
	/* a folder out of the order */
	put(tmp, "extra/x.c", "\n");
	/* cmd/ may include any stage; a source outside the folders is out of place */
	put(tmp, "cmd/main.c", "#include \"judge/compare.h\"\n#include \"spec/spec.h\"\n");
	put(tmp, "stray.c", "\n");
	arrows back = {0}, bad = {0};
	scan_tree(tmp, &back, &bad);
	CU_ASSERT_EQUAL(back.n, 1);
	if (back.n == 1)
		CU_ASSERT_STRING_EQUAL(back.v[0], "spec/spec.c -> judge/compare.h");
	CU_ASSERT_EQUAL(bad.n, 3);
	if (bad.n == 3) {
		CU_ASSERT_PTR_NOT_NULL(strstr(bad.v[0], "extra/"));
		CU_ASSERT_PTR_NOT_NULL(strstr(bad.v[1], "judge/compare.c: includes \"compare.h\""));
		CU_ASSERT_PTR_NOT_NULL(strstr(bad.v[2], "stray.c: a source outside"));
	}
	arrows_free(&back);
	arrows_free(&bad);
	qct_rmdir(tmp);

	/* the reference's circle: a.c -> b.h, b.c -> c.h, c.h -> a.h; d only below them */
	tmp = qct_tmpdir();
	put(tmp, "a.h", "#include \"d.h\"\n");
	put(tmp, "a.c", "#include \"a.h\"\n#include \"b.h\"\n");
	put(tmp, "b.h", "\n");
	put(tmp, "b.c", "#include \"reference/c.h\"\n");
	put(tmp, "c.h", "#include \"a.h\"\n");
	put(tmp, "d.h", "#include <stdio.h>\n");
	char why[256] = "";
	CU_ASSERT_EQUAL(reference_circle(tmp, why, sizeof why), 1);
	CU_ASSERT(strstr(why, "a -> b -> c -> a") || strstr(why, "b -> c -> a -> b") ||
	          strstr(why, "c -> a -> b -> c"));
	put(tmp, "c.h", "#include \"d.h\"\n");
	CU_ASSERT_EQUAL(reference_circle(tmp, why, sizeof why), 0);
	qct_rmdir(tmp);
}

void qct_register_layers(void)
{
	CU_pSuite s = qct_suite("layers");
	CU_add_test(s,
	            "the checker finds a back arrow, a bare include, a stray folder and file, "
	            "a circle",
	            test_checker_finds_faults);
	CU_add_test(s, "no stage of the harness includes a later stage", test_one_way);
	CU_add_test(s, "no circle between the reference's files", test_reference_no_circle);
}
