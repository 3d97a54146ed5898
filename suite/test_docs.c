/*
 * The repository refers only to files it holds. Over every tracked file (`git ls-files`; a walk
 * of the tree when git cannot list them):
 *  - none names a file kept outside the repository: the notes the project was started from and
 *    numbered seed files (the names are spelled in pieces below, so this file does not name
 *    them itself);
 *  - Markdown: every relative link [text](target) reaches a file or directory, and its #anchor
 *    a heading of the target (the slugs GitHub gives headings);
 *  - every path that starts at one of the repository's own directories (docs/, specs/, suite/,
 *    harness/, plugins/, reports/) or with ../ exists when it names a Markdown file or carries
 *    an #anchor; in a spec (a .yaml file under specs/) every such path exists, whatever it names.
 * reference/ is not among those directories: the specs cite LiteRT's
 * tflite/kernels/internal/reference/X.h files as reference/X.h.
 *
 * README.md is the door to the rest, and stays one:
 *  - every file under docs/, every specs/<semantics>/OPERATORS.md, specs/README.md and
 *    plugins/README.md is reached from README.md by following Markdown links (a link to a
 *    directory reaches its README.md);
 *  - its first paragraph, the scope sentence, links specs/<semantics>/OPERATORS.md for exactly
 *    the folders of specs/ that hold specs (profiles/ aside), and names every dtype of the
 *    plugin header (GGML's block types by the first and the last), so a semantics or a dtype
 *    added without the README fails here;
 *  - it has fewer than 250 lines.
 */
#include <ctype.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qconform/plugin.h"
#include "qct.h"

#define MAX_SHOWN 40

typedef struct problems {
	int n;
	int shown;
} problems;

static void problem(problems *p, const char *path, const char *text, const char *at,
                    const char *fmt, const char *what)
{
	p->n++;
	if (p->shown >= MAX_SHOWN)
		return;
	p->shown++;
	int line = 1;
	for (const char *c = text; c < at; c++)
		line += *c == '\n';
	fprintf(stderr, "\n  %s:%d: ", path, line);
	fprintf(stderr, fmt, what);
}

/* ---- files -------------------------------------------------------------- */

/* The whole file, NUL-terminated; NULL if it cannot be read or holds a NUL byte (binary). */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, r;
	char *b = malloc(cap);
	while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	fclose(f);
	if (!b)
		return NULL;
	b[n] = 0;
	if (memchr(b, 0, n)) {
		free(b);
		return NULL;
	}
	return b;
}

static int exists(const char *path)
{
	struct stat st;
	if (strpbrk(path, "*?[")) {
		glob_t g = {0};
		int found = glob(path, 0, NULL, &g) == 0 && g.gl_pathc > 0;
		globfree(&g);
		return found;
	}
	return stat(path, &st) == 0;
}

/* dir + "/" + rel with "." and ".." folded; "" for the top directory. 0 if it leaves it. */
static int join(const char *dir, const char *rel, char *out, size_t size)
{
	char buf[2048], *parts[256];
	int n = 0;
	snprintf(buf, sizeof buf, "%s%s%s", dir, *dir ? "/" : "", rel);
	for (char *s = strtok(buf, "/"); s; s = strtok(NULL, "/")) {
		if (!strcmp(s, "."))
			continue;
		if (!strcmp(s, "..")) {
			if (n == 0)
				return 0;
			n--;
			continue;
		}
		if (n < 256)
			parts[n++] = s;
	}
	size_t len = 0;
	out[0] = 0;
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "/" : "", parts[i]);
	if (n == 0)
		snprintf(out, size, ".");
	return len < size;
}

/* ---- Markdown headings -------------------------------------------------- */

/* A heading's anchor as GitHub makes it: lower case, spaces to '-', ASCII punctuation other
 * than '-' and '_' dropped, a link's target dropped; other bytes (UTF-8) kept. */
static void slug(const char *h, size_t len, char *out, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 1 < size; i++) {
		unsigned char c = (unsigned char)h[i];
		if (c == ']' && i + 1 < len && h[i + 1] == '(') {
			while (i < len && h[i] != ')')
				i++;
			continue;
		}
		if (isalnum(c) || c == '-' || c == '_')
			out[o++] = (char)tolower(c);
		else if (c == ' ')
			out[o++] = '-';
		else if (c >= 0x80)
			out[o++] = (char)c;
	}
	out[o] = 0;
}

/* Is anchor the slug of a heading of the Markdown file at path? Repeated headings get -1, -2,
 * ...; fenced code is not searched. */
static int has_anchor(const char *path, const char *anchor)
{
	char *t = read_text(path);
	if (!t)
		return 0;
	enum { MAX_HEADINGS = 512 };
	static char seen[MAX_HEADINGS][160];
	int n_seen = 0, found = 0, fence = 0;
	for (char *line = t; *line && !found;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (!strncmp(line, "```", 3))
			fence = !fence;
		else if (!fence && line[0] == '#') {
			size_t k = 0;
			while (k < len && line[k] == '#')
				k++;
			if (k <= 6 && k < len && line[k] == ' ') {
				char s[160], full[170];
				slug(line + k + 1, len - k - 1, s, sizeof s);
				int dup = 0;
				for (int i = 0; i < n_seen; i++)
					dup += !strcmp(seen[i], s);
				if (n_seen < MAX_HEADINGS)
					snprintf(seen[n_seen++], sizeof seen[0], "%s", s);
				if (dup)
					snprintf(full, sizeof full, "%s-%d", s, dup);
				else
					snprintf(full, sizeof full, "%s", s);
				found = !strcmp(full, anchor);
			}
		}
		line += len + (end != NULL);
	}
	free(t);
	return found;
}

/* ---- one file's text ---------------------------------------------------- */

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t k = strlen(suffix);
	return len >= k && !memcmp(s + len - k, suffix, k);
}

/* target (path[#anchor], path relative to dir; with root_too also to the top) exists. */
static void check_target(problems *p, const char *path, const char *text, const char *at,
                         const char *dir, const char *target, int root_too)
{
	char file[1024], anchor[256] = "", resolved[2048] = "";
	const char *hash = strchr(target, '#');
	size_t flen = hash ? (size_t)(hash - target) : strlen(target);
	snprintf(file, sizeof file, "%.*s", (int)flen, target);
	if (hash)
		snprintf(anchor, sizeof anchor, "%s", hash + 1);
	if (!file[0]) {
		snprintf(resolved, sizeof resolved, "%s", path);
	} else {
		char a[2048], b[2048];
		int ok_a = join(dir, file, a, sizeof a) && exists(a);
		int ok_b = root_too && join("", file, b, sizeof b) && exists(b);
		if (ok_a)
			snprintf(resolved, sizeof resolved, "%s", a);
		else if (ok_b)
			snprintf(resolved, sizeof resolved, "%s", b);
		else {
			problem(p, path, text, at,
			        "'%s' refers to a file the repository does not hold", target);
			return;
		}
	}
	if (anchor[0] && ends_with(resolved, strlen(resolved), ".md") &&
	    !has_anchor(resolved, anchor))
		problem(p, path, text, at, "'%s': no heading of that file makes this anchor",
		        target);
}

/* Names of files kept outside the repository, in pieces. */
static const char *const outside[] = {"FACTS"
                                      ".md",
                                      "FACTS"
                                      "-ops",
                                      "DESIGN"
                                      ".md",
                                      "OPS"
                                      "-conv",
                                      "../"
                                      "shared"};

static int path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '/' || c == '-' ||
	       c == '*';
}

/* The folder of path (relative to the top directory): "" at the top. */
static void dir_of(const char *path, char *dir, size_t n)
{
	snprintf(dir, n, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		dir[0] = 0;
}

/* Calls f(ctx, at, target, length) for each Markdown link [text](target) of text outside
 * fenced code (at: its "]("), target with its #anchor when anchors, else without (so that an
 * anchor of the same page is no link); links to other sites are skipped. */
static void for_each_link(const char *text, int anchors,
                          void (*f)(void *, const char *, const char *, size_t), void *ctx)
{
	int fence = 0;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (!strncmp(line, "```", 3))
			fence = !fence;
		for (size_t k = 0; !fence && k + 1 < len; k++) {
			if (line[k] != ']' || line[k + 1] != '(')
				continue;
			size_t s = k + 2, e = s;
			while (e < len && line[e] != ')' && line[e] != ' ' &&
			       (anchors || line[e] != '#'))
				e++;
			const char *t = line + s;
			size_t tl = e - s;
			if (!tl || memmem(t, tl, "://", 3) ||
			    (tl >= 7 && !strncmp(t, "mailto:", 7)))
				continue;
			f(ctx, line + k, t, tl);
		}
		line += len + (end != NULL);
	}
}

/* A link of a page checked against the files (check_text). */
typedef struct link_check {
	problems *p;
	const char *path, *text, *dir;
} link_check;

static void check_link(void *ctx, const char *at, const char *t, size_t tl)
{
	link_check *c = ctx;
	char target[1024];
	snprintf(target, sizeof target, "%.*s", (int)tl, t);
	check_target(c->p, c->path, c->text, at, c->dir, target, 0);
}

/* Checks one file's text (path relative to the top directory); returns the problems found. */
static int check_text(const char *path, const char *text, problems *p)
{
	int before = p->n;
	size_t plen = strlen(path);
	int md = ends_with(path, plen, ".md");
	int spec = !strncmp(path, "specs/", 6) && ends_with(path, plen, ".yaml");
	char dir[1024];
	dir_of(path, dir, sizeof dir);

	for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
		for (const char *c = strstr(text, outside[i]); c; c = strstr(c + 1, outside[i]))
			problem(p, path, text, c, "names %s, a file outside the repository",
			        outside[i]);
	for (const char *c = strstr(text, "seeds/"); c; c = strstr(c + 1, "seeds/"))
		if (isdigit((unsigned char)c[6]))
			problem(p, path, text, c, "names %s, a seed file outside the repository",
			        "seeds/NNN");

	/* Markdown links, outside fenced code */
	if (md)
		for_each_link(text, 1, check_link, &(link_check){p, path, text, dir});

	/* paths into the repository's own directories, or relative ones */
	static const char *const prefixes[] = {"docs/",    "specs/",   "suite/", "harness/",
	                                       "plugins/", "reports/", "../"};
	for (const char *c = text; *c; c++) {
		if (c > text && (path_char(c[-1]) || c[-1] == '#'))
			continue;
		if (md && c - text >= 2 && c[-1] == '(' && c[-2] == ']')
			continue; /* a link's target: checked above */
		size_t k = 0;
		while (k < sizeof prefixes / sizeof prefixes[0] &&
		       strncmp(c, prefixes[k], strlen(prefixes[k])))
			k++;
		if (k == sizeof prefixes / sizeof prefixes[0])
			continue;
		size_t len = 0;
		while (path_char(c[len]))
			len++;
		while (len && (c[len - 1] == '.' || c[len - 1] == '-'))
			len--; /* the end of a sentence or a range */
		size_t alen = 0;
		if (c[len] == '#')
			while (isalnum((unsigned char)c[len + 1 + alen]) ||
			       c[len + 1 + alen] == '-' || c[len + 1 + alen] == '_')
				alen++;
		if (!(spec || ends_with(c, len, ".md") || alen))
			continue;
		char target[1024];
		snprintf(target, sizeof target, "%.*s", (int)(len + (alen ? alen + 1 : 0)), c);
		check_target(p, path, text, c, dir, target, k < 6);
		c += len - 1; /* the loop steps past the path's last character, not past its end */
	}
	return p->n - before;
}

/* ---- the repository's files --------------------------------------------- */

typedef struct file_list {
	char **v;
	size_t n, cap;
} file_list;

static void add_file(file_list *l, const char *path)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof *l->v);
	}
	if (l->v)
		l->v[l->n++] = strdup(path);
}

static file_list *walk_into;

static int walk_one(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	const char *rel = fpath[0] == '.' && fpath[1] == '/' ? fpath + 2 : fpath;
	const char *base = fpath + ftw->base;
	if (type == FTW_D &&
	    (!strcmp(base, ".git") || (ftw->level == 1 && !strncmp(base, "build", 5)) ||
	     !strcmp(rel, "reports/out")))
		return FTW_SKIP_SUBTREE;
	if (type == FTW_F && strcmp(base, ".git") != 0) /* a worktree's .git is a file */
		add_file(walk_into, rel);
	return FTW_CONTINUE;
}

/* The tracked files (git), or every file under the top directory but .git, build* and
 * reports/out when git cannot list them. */
static void list_files(file_list *l)
{
	qct_proc pr;
	if (qct_sh(&pr, "git -c core.quotePath=false ls-files") == 0 && pr.status == 0 &&
	    pr.out[0]) {
		for (char *s = strtok(pr.out, "\n"); s; s = strtok(NULL, "\n"))
			add_file(l, s);
		qct_proc_free(&pr);
		return;
	}
	qct_proc_free(&pr);
	fprintf(stderr, "\n  docs: git cannot list the tracked files here; walking the tree");
	walk_into = l;
	nftw(".", walk_one, 32, FTW_PHYS | FTW_ACTIONRETVAL);
}

/* ---- README.md, the door ----------------------------------------------- */

/* Where pages are read from: the repository, or a fixture of (path, text) pairs. */
typedef struct page_source {
	const char *const *fixture; /* NULL: the files of the working directory */
} page_source;

static char *source_read(const page_source *src, const char *path)
{
	if (!src->fixture)
		return read_text(path);
	for (const char *const *f = src->fixture; *f; f += 2)
		if (!strcmp(f[0], path))
			return strdup(f[1]);
	return NULL;
}

static int source_is_dir(const page_source *src, const char *path)
{
	if (!src->fixture) {
		struct stat st;
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	}
	size_t n = strlen(path);
	for (const char *const *f = src->fixture; *f; f += 2)
		if (!strncmp(f[0], path, n) && f[0][n] == '/')
			return 1;
	return 0;
}

typedef struct page_walk {
	const page_source *src;
	const char *dir; /* of the page being read */
	file_list reached;
	size_t next; /* the first reached path not read yet */
} page_walk;

static int in_list(const file_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], path))
			return 1;
	return 0;
}

static void reach(void *ctx, const char *at, const char *target, size_t len)
{
	(void)at;
	page_walk *w = ctx;
	char rel[1024], path[2048];
	snprintf(rel, sizeof rel, "%.*s", (int)len, target);
	if (!join(w->dir, rel, path, sizeof path))
		return;
	if (source_is_dir(w->src, path)) {
		if (!in_list(&w->reached, path))
			add_file(&w->reached, path);
		char readme[2100];
		snprintf(readme, sizeof readme, "%s/README.md", strcmp(path, ".") ? path : "");
		snprintf(path, sizeof path, "%s", readme[0] == '/' ? readme + 1 : readme);
	}
	if (!in_list(&w->reached, path))
		add_file(&w->reached, path);
}

/* Counts (and reports) the pages of `pages` that no chain of links from start reaches. */
static int check_reachable(const page_source *src, const char *start, const char *const *pages,
                           size_t n_pages, problems *p)
{
	page_walk w = {src, "", {0}, 0};
	add_file(&w.reached, start);
	while (w.next < w.reached.n) {
		const char *page = w.reached.v[w.next++];
		size_t len = strlen(page);
		if (!ends_with(page, len, ".md"))
			continue;
		char *text = source_read(src, page);
		if (!text)
			continue;
		char dir[1024];
		dir_of(page, dir, sizeof dir);
		w.dir = dir;
		for_each_link(text, 0, reach, &w);
		free(text);
	}
	int bad = 0;
	for (size_t i = 0; i < n_pages; i++)
		if (!in_list(&w.reached, pages[i])) {
			bad++;
			problem(p, pages[i], "", "", "no chain of links from %s reaches it", start);
		}
	for (size_t i = 0; i < w.reached.n; i++)
		free(w.reached.v[i]);
	free(w.reached.v);
	return bad;
}

/* The pages README.md must lead to, among the tracked files. */
static int must_be_reached(const char *path)
{
	if (!strncmp(path, "docs/", 5))
		return 1;
	if (!strcmp(path, "specs/README.md") || !strcmp(path, "plugins/README.md"))
		return 1;
	const char *second = !strncmp(path, "specs/", 6) ? strchr(path + 6, '/') : NULL;
	return second && !strcmp(second, "/OPERATORS.md");
}

/* The README's first paragraph: the lines after its title up to the next blank line. */
static char *first_paragraph(const char *text)
{
	const char *s = text;
	if (*s == '#')
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s);
	while (*s == '\n')
		s++;
	const char *e = strstr(s, "\n\n");
	size_t n = e ? (size_t)(e - s) : strlen(s);
	char *out = malloc(n + 1);
	if (out) {
		memcpy(out, s, n);
		out[n] = 0;
	}
	return out;
}

/* word occurs in text with no letter, digit or '_' on either side */
static int has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *c = strstr(text, word); c; c = strstr(c + 1, word)) {
		int before = c > text && (isalnum((unsigned char)c[-1]) || c[-1] == '_');
		int after = isalnum((unsigned char)c[n]) || c[n] == '_';
		if (!before && !after)
			return 1;
	}
	return 0;
}

typedef struct named_semantics {
	file_list names;
} named_semantics;

static void name_semantics(void *ctx, const char *at, const char *target, size_t len)
{
	(void)at;
	named_semantics *ns = ctx;
	const char *suffix = "/OPERATORS.md";
	size_t sl = strlen(suffix);
	if (len <= 6 + sl || strncmp(target, "specs/", 6) || memcmp(target + len - sl, suffix, sl))
		return;
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)(len - 6 - sl), target + 6);
	if (!strchr(name, '/') && !in_list(&ns->names, name))
		add_file(&ns->names, name);
}

/* The scope sentence (the first paragraph of readme) against the semantics, the folders of
 * specs/ that hold specs, and the plugin header's dtypes; returns the problems found. */
static int check_scope(const char *readme, const char *const *semantics, size_t n_semantics,
                       problems *p)
{
	int before = p->n;
	char *para = first_paragraph(readme);
	if (!para)
		return 1;
	named_semantics ns = {{0}};
	for_each_link(para, 0, name_semantics, &ns);
	for (size_t i = 0; i < ns.names.n; i++) {
		int known = 0;
		for (size_t k = 0; k < n_semantics; k++)
			known |= !strcmp(semantics[k], ns.names.v[i]);
		if (!known)
			problem(p, "README.md", "", "",
			        "the scope sentence names specs/%s/, which holds no spec",
			        ns.names.v[i]);
	}
	for (size_t k = 0; k < n_semantics; k++)
		if (!in_list(&ns.names, semantics[k])) {
			char what[600];
			snprintf(what, sizeof what,
			         "specs/%s/OPERATORS.md, though specs/%s/ holds specs",
			         semantics[k], semantics[k]);
			problem(p, "README.md", "", "", "the scope sentence does not link %s",
			        what);
		}
	const char *ggml_first = NULL, *ggml_last = NULL;
	for (int t = QCF_DTYPE_INVALID + 1; t < QCF_DTYPE_COUNT; t++) {
		const char *name = qcf_dtype_name((qcf_dtype)t);
		if (!strcmp(name, "invalid"))
			continue;
		if (!strncmp(name, "ggml_", 5)) {
			ggml_first = ggml_first ? ggml_first : name;
			ggml_last = name;
		} else if (!has_word(para, name))
			problem(p, "README.md", "", "", "the scope sentence does not name dtype %s",
			        name);
	}
	if (ggml_first && !has_word(para, ggml_first))
		problem(p, "README.md", "", "", "the scope sentence does not name dtype %s",
		        ggml_first);
	if (ggml_last && !has_word(para, ggml_last))
		problem(p, "README.md", "", "", "the scope sentence does not name dtype %s",
		        ggml_last);
	for (size_t i = 0; i < ns.names.n; i++)
		free(ns.names.v[i]);
	free(ns.names.v);
	free(para);
	return p->n - before;
}

static void test_no_outside_references(void)
{
	file_list l = {0};
	list_files(&l);
	CU_ASSERT_FATAL(l.n > 100);
	problems p = {0};
	size_t texts = 0;
	for (size_t i = 0; i < l.n; i++) {
		char *t = read_text(l.v[i]);
		if (t) {
			texts++;
			check_text(l.v[i], t, &p);
			free(t);
		}
		free(l.v[i]);
	}
	free(l.v);
	if (p.n)
		fprintf(stderr, "\n  docs: %d reference(s) to files the repository does not hold%s",
		        p.n, p.n > p.shown ? " (the first shown)" : "");
	CU_ASSERT(texts > 100);
	CU_ASSERT_EQUAL(p.n, 0);
}

/* The checker finds what it looks for, and only that, in texts made up here. The bad
 * references are split across string literals so that this file does not hold them. */
static void test_checker_finds_bad_references(void)
{
	problems p = {0, MAX_SHOWN}; /* the expected problems are not printed */
	CU_ASSERT_EQUAL(check_text("zz.md",
	                           "see FACTS"
	                           ".md and seeds/"
	                           "001, not suite/fuzz/seeds/x.yaml",
	                           &p),
	                2);
	CU_ASSERT_EQUAL(check_text("zz.md",
	                           "[ok](README.md#quick-start) [ok](docs/)\n"
	                           "[bad](nowhere/missing.md) [bad](README.md#no-such-heading)\n"
	                           "specs/README.md#tolerances, ok; docs/"
	                           "missing-page.md, bad.\n"
	                           "```\n[in a fence](missing.md)\n```\n",
	                           &p),
	                3);
	CU_ASSERT_EQUAL(check_text("specs/zz/x"
	                           ".md",
	                           "[up](../"
	                           "README.md#profiles) [no](../"
	                           "nope.md)",
	                           &p),
	                1);
	CU_ASSERT_EQUAL(check_text("specs/zz/x.yaml",
	                           "source: tflite/kernels/internal/reference/reduce.h, "
	                           "reference/reduce.h; specs/litert/add.yaml, "
	                           "specs/litert/no_such_spec.yaml",
	                           &p),
	                1);
	CU_ASSERT_EQUAL(
	        check_text("suite/x.c",
	                   "/* specs/litert/OPERATORS.md"
	                   "#no-such, specs/litert/OPERATORS.md#golden-values, docs/x.yaml */",
	                   &p),
	        1);
	CU_ASSERT_EQUAL(p.n, 8);
}

static void free_list(file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* The folders of specs/ that hold a spec (a .yaml file at any depth), profiles/ aside. */
static void semantics_of(const file_list *files, file_list *out)
{
	for (size_t i = 0; i < files->n; i++) {
		const char *f = files->v[i];
		const char *slash = !strncmp(f, "specs/", 6) ? strchr(f + 6, '/') : NULL;
		if (!slash || !ends_with(f, strlen(f), ".yaml"))
			continue;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(slash - f - 6), f + 6);
		if (strcmp(name, "profiles") != 0 && !in_list(out, name))
			add_file(out, name);
	}
}

static void test_readme_reaches_every_page(void)
{
	file_list files = {0}, pages = {0};
	list_files(&files);
	for (size_t i = 0; i < files.n; i++)
		if (must_be_reached(files.v[i]))
			add_file(&pages, files.v[i]);
	CU_ASSERT(pages.n > 20); /* docs/, seven OPERATORS.md, specs/ and plugins/ READMEs */
	page_source repo = {NULL};
	problems p = {0};
	check_reachable(&repo, "README.md", (const char *const *)pages.v, pages.n, &p);
	if (p.n)
		fprintf(stderr,
		        "\n  docs: %d page(s) README.md does not lead to: link each from a page "
		        "it reaches (docs/README.md, the index)",
		        p.n);
	CU_ASSERT_EQUAL(p.n, 0);
	free_list(&pages);
	free_list(&files);
}

static void test_readme_scope_is_true(void)
{
	file_list files = {0}, semantics = {0};
	list_files(&files);
	semantics_of(&files, &semantics);
	CU_ASSERT(semantics.n >= 7);
	char *readme = read_text("README.md");
	CU_ASSERT_PTR_NOT_NULL_FATAL(readme);
	problems p = {0};
	check_scope(readme, (const char *const *)semantics.v, semantics.n, &p);
	if (p.n)
		fprintf(stderr,
		        "\n  docs: the first paragraph of README.md (its scope sentence) is out "
		        "of date");
	CU_ASSERT_EQUAL(p.n, 0);
	free(readme);
	free_list(&semantics);
	free_list(&files);
}

enum { README_MAX_LINES = 250 };

static void test_readme_is_a_door(void)
{
	char *readme = read_text("README.md");
	CU_ASSERT_PTR_NOT_NULL_FATAL(readme);
	int lines = 0;
	for (const char *c = readme; *c; c++)
		lines += *c == '\n';
	if (lines >= README_MAX_LINES)
		fprintf(stderr,
		        "\n  docs: README.md has %d lines; it is the door (under %d): move the "
		        "operational text to a page of docs/ and link it",
		        lines, README_MAX_LINES);
	CU_ASSERT(lines < README_MAX_LINES);
	free(readme);
}

/* The reachability and scope checkers find what they look for in fixtures. */
static void test_door_checkers_find_problems(void)
{
	static const char *const site[] = {
	        "README.md",
	        "# x\n\n[docs](docs/README.md) [adapters](plugins/) [web](https://e.org/a.md)\n",
	        "docs/README.md",
	        "[a](a.md#part) [pipe](ci/pipe.yml)\n```\n[fenced](b.md)\n```\n",
	        "docs/"
	        "a.md",
	        "[back](../README.md) [self](#top)\n",
	        "docs/"
	        "b.md",
	        "only a fence links here\n",
	        "docs/"
	        "c.md",
	        "[a](a.md): links out, nothing links in\n",
	        "docs/ci/pipe.yml",
	        "steps: []\n",
	        "plugins/README.md",
	        "reached through its directory\n",
	        "specs/README.md",
	        "linked from nowhere\n",
	        NULL};
	/* the names of the pages that do not exist are split, as above */
	static const char *const pages[] = {"docs/README.md",
	                                    "docs/"
	                                    "a.md",
	                                    "docs/"
	                                    "b.md",
	                                    "docs/"
	                                    "c.md",
	                                    "docs/ci/pipe.yml",
	                                    "plugins/README.md",
	                                    "specs/README.md"};
	page_source fixture = {site};
	problems p = {0, MAX_SHOWN}; /* the expected problems are not printed */
	CU_ASSERT_EQUAL(check_reachable(&fixture, "README.md", pages, 7, &p), 3);

	/* a whole scope: every semantics linked, every dtype named */
	char good[4096] = "# qconform\n\nJudges [a](specs/"
	                  "a/OPERATORS.md) and [b](specs/"
	                  "b/OPERATORS.md):";
	for (int t = QCF_DTYPE_INVALID + 1; t < QCF_DTYPE_COUNT; t++) {
		const char *name = qcf_dtype_name((qcf_dtype)t);
		if (strcmp(name, "invalid") != 0) {
			strcat(good, " ");
			strcat(good, name);
		}
	}
	strcat(good, ".\n\n[c](specs/"
	             "c/OPERATORS.md) after the first paragraph counts for nothing.\n");
	const char *const ab[] = {"a", "b"}, *const abc[] = {"a", "b", "c"};
	problems q = {0, MAX_SHOWN};
	CU_ASSERT_EQUAL(check_scope(good, ab, 2, &q), 0);
	/* a semantics added to specs/ without the README: c */
	CU_ASSERT_EQUAL(check_scope(good, abc, 3, &q), 1);
	/* a semantics named that specs/ does not hold: b */
	CU_ASSERT_EQUAL(check_scope(good, ab, 1, &q), 1);
	/* a dtype dropped (float8e4m3fn, whose name is also the start of float8e4m3fnuz), and the
	 * last GGML block type */
	char *cut = strstr(good, " float8e4m3fn ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(cut);
	memcpy(cut + 1, "xxxxxxxxxxxx", 12);
	char *last = strstr(good, qcf_dtype_name((qcf_dtype)(QCF_DTYPE_COUNT - 1)));
	CU_ASSERT_PTR_NOT_NULL_FATAL(last);
	last[0] = 'X';
	CU_ASSERT_EQUAL(check_scope(good, ab, 2, &q), 2);
	CU_ASSERT_EQUAL(q.n, 4);
}

void qct_register_docs(void)
{
	CU_pSuite s = qct_suite("docs");
	CU_add_test(s, "the checker finds references to missing files",
	            test_checker_finds_bad_references);
	CU_add_test(s, "no file refers to a file the repository does not hold",
	            test_no_outside_references);
	CU_add_test(s, "the door checkers find unreachable pages and an untrue scope",
	            test_door_checkers_find_problems);
	CU_add_test(s, "README.md leads to every page of docs/ and every OPERATORS.md",
	            test_readme_reaches_every_page);
	CU_add_test(s, "the scope sentence of README.md names every semantics and dtype",
	            test_readme_scope_is_true);
	CU_add_test(s, "README.md stays a door: under 250 lines", test_readme_is_a_door);
}
