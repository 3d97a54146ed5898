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
static void scan_file(const char *root, const char *rel, int rank, arrows *back, arrows *bad)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	char *text = qct_read_file(path);
	if (!text) {
		add(bad, "%s: cannot be read%s", rel, "");
		return;
	}
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (!strncmp(p, "include", 7)) {
				p += 7;
				while (*p == ' ' || *p == '\t')
					p++;
				char *end = *p == '"' ? strchr(p + 1, '"') : NULL;
				if (end) {
					*end = '\0';
					const char *h = p + 1, *slash = strchr(h, '/');
					char there[1100];
					int r = slash ? stage_rank(h, (size_t)(slash - h)) : -1;
					if (!slash) {
						/* a header of the harness or the reference without
						 * its folder */
						int found = 0;
						for (int i = 0; i < N_STAGES && !found; i++) {
							snprintf(there, sizeof there, "%s/%s/%s",
							         root, STAGES[i], h);
							found = exists(there);
						}
						snprintf(there, sizeof there,
						         "%s/../../reference/%s", root, h);
						if (found || exists(there))
							add(bad,
							    "%s: includes \"%s\" without its "
							    "folder",
							    rel, h);
					} else if (r > rank) {
						add(back, "%s -> %s", rel, h);
					}
				}
			}
		}
		line = next;
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
}

void qct_register_layers(void)
{
	CU_pSuite s = qct_suite("layers");
	CU_add_test(s, "the checker finds a back arrow, a bare include, a stray folder and file",
	            test_checker_finds_faults);
	CU_add_test(s, "no stage of the harness includes a later stage", test_one_way);
}
