/* The command line as a user meets it: help, version, mistakes, and the installed tool. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <jansson.h>

#include "cmd/help.h"
#include "qct.h"
#include "report/console.h"

/* Every command answers --help and -h on stdout with exit 0, its usage line first; so does
 * `qconform help COMMAND`; --version and version say the same. */
static void test_help_everywhere(void)
{
	const char *q = qct_build_path("qconform");
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s --commands", q), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	char *names = strdup(p.out);
	qct_proc_free(&p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(names);
	int n = 0;
	for (char *name = strtok(names, "\n"); name; name = strtok(NULL, "\n"), n++) {
		static const char *const forms[] = {"%s %s --help", "%s %s -h", "%s help %s",
		                                    "%s %s --plugin x --help"};
		char want[128];
		snprintf(want, sizeof want, "usage: qconform %s", name);
		for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
			const char *fmt = forms[f];
			char cmd[256];
			if (f == 2)
				snprintf(cmd, sizeof cmd, fmt, q, name);
			else
				snprintf(cmd, sizeof cmd, fmt, q, name);
			CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s", cmd), 0);
			if (p.status != 0 || strncmp(p.out, want, strlen(want)) != 0)
				fprintf(stderr, "\n  %s: exit %d, %.200s%.200s", cmd, p.status,
				        p.out, p.err);
			CU_ASSERT_EQUAL(p.status, 0);
			CU_ASSERT_EQUAL(strncmp(p.out, want, strlen(want)), 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "exit status:"));
			CU_ASSERT_STRING_EQUAL(p.err, "");
			qct_proc_free(&p);
		}
	}
	free(names);
	/* the commands of the main usage (the ones a user reaches from it) */
	CU_ASSERT_TRUE(n >= 12);
	const char *versions[] = {"--version", "version", "-V"};
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s %s", q, versions[i]), 0);
		CU_ASSERT_EQUAL(p.status, 0);
		CU_ASSERT_EQUAL(strncmp(p.out, "qconform ", 9), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "plugin ABI"));
		qct_proc_free(&p);
	}
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s --help", q), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "  certify "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "  export "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "  import "));
	qct_proc_free(&p);
}

/* A mistyped command or option: exit 2, the error on the first line of stderr with the
 * nearest valid word, nothing on stdout. */
static void test_mistakes_name_the_nearest(void)
{
	static const struct {
		const char *args, *says;
	} cases[] = {
	        {"rnu", "qconform: unknown command 'rnu' (did you mean 'run'?)"},
	        {"certfy --profile x",
	         "qconform: unknown command 'certfy' (did you mean 'certify'?)"},
	        {"run --filtr 'x*'",
	         "qconform run: unknown option --filtr (did you mean --filter?)"},
	        {"list --seeed 3", "qconform list: unknown option --seeed (did you mean --seed?)"},
	        {"quant --dtype int8 --scal 0.5", "qconform quant: unknown option --scal (did you "
	                                          "mean --scale?)"},
	        {"merge a.json --jsn b.json", "qconform merge: unknown option --jsn (did you mean "
	                                      "--json?)"},
	        {"report r.json --htm x.html", "qconform report: unknown option --htm (did you "
	                                       "mean --html?)"},
	        {"export specs/litert/add.yaml --c-array --out x",
	         "qconform export: unknown option --c-array (did you mean --c-arrays?)"},
	        {"import x --outptus y", "qconform import: unknown option --outptus (did you mean "
	                                 "--outputs?)"},
	        {"import", "qconform import: needs the export directory"},
	        {"export specs/litert/add.yaml",
	         "qconform export: needs --out DIR (where the case files go)"},
	        {"zzzzzz",
	         "qconform: unknown command 'zzzzzz'; qconform --help lists the commands"},
	        {"help rnu", "qconform: unknown command 'rnu' (did you mean 'run'?)"},
	        /* an option of another command is not one of this command's (its --help) */
	        {"list specs/litert/add.yaml --plugin x",
	         "qconform list: unknown option --plugin; qconform list --help lists them"},
	        {"validate specs/litert/add.yaml --seed 3",
	         "qconform validate: unknown option --seed; qconform validate --help lists them"},
	        {"certify --profile litert-int8 --resume j",
	         "qconform certify: unknown option --resume"},
	        {"run specs/litert/add.yaml --json",
	         "qconform run: missing value after --json (FILE)"},
	        {"diagnose --plugin", "qconform diagnose: missing value after --plugin (PATH)"},
	        /* as run: a selection with no case */
	        {"list specs/litert/add.yaml --filter 'zz*'",
	         "qconform list: no case matches the filters/profile"},
	};
	const char *q = qct_build_path("qconform");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		qct_proc p;
		CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s %s", q, cases[i].args), 0);
		size_t n = strlen(cases[i].says);
		if (p.status != 2 || strncmp(p.err, cases[i].says, n) != 0)
			fprintf(stderr, "\n  qconform %s: exit %d, said: %s", cases[i].args,
			        p.status, p.err);
		CU_ASSERT_EQUAL(p.status, 2);
		CU_ASSERT_EQUAL(strncmp(p.err, cases[i].says, n), 0);
		/* one line */
		const char *nl = strchr(p.err, '\n');
		CU_ASSERT_TRUE(nl && nl[1] == 0);
		CU_ASSERT_STRING_EQUAL(p.out, "");
		qct_proc_free(&p);
	}
}

/* show lays a tensor out by its shape: one row per innermost line, labelled with its index. */
static void test_show_rows(void)
{
	qct_proc p;
	char q[600];
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s show \"$(%s list specs/litert/conv_2d.yaml | head -n 1)\" "
	                             "specs/litert/conv_2d.yaml",
	                             q, q),
	                      0);
	CU_ASSERT_EQUAL(p.status, 0);
	/* input int8[1,6,7,3]: 42 rows of 3 values, the last [0,5,6,:] */
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "  input: int8[1,6,7,3] "));
	const char *last = strstr(p.out, "\n    [0,5,6,:] ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(last);
	int values = 0;
	for (const char *c = last + strlen("\n    [0,5,6,:]"); *c && *c != '\n'; c++)
		values += *c == ' ';
	CU_ASSERT_EQUAL(values, 3);
	CU_ASSERT_PTR_NULL(strstr(p.out, "[0,6,0,:]"));
	qct_proc_free(&p);
}

/* The man pages come from the same description as --help: one per command, in roff, naming
 * every option the --help of the command names. */
static void test_man_pages(void)
{
	const char *q = qct_build_path("qconform");
	qct_proc p, h;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s --man run", q), 0);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_EQUAL(strncmp(p.out, ".TH QCONFORM-RUN 1 ", 19), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, ".SH OPTIONS"));
	CU_ASSERT_EQUAL_FATAL(qct_sh(&h, "%s run --help", q), 0);
	/* every flag of the help, in the page (roff spells '-' as '\-') */
	int flags = 0;
	for (const char *s = h.out; (s = strstr(s, "\n  --")) != NULL; s += 3) {
		char flag[64], roff[128];
		size_t n = strcspn(s + 3, " \n");
		snprintf(flag, sizeof flag, "%.*s", (int)n, s + 3);
		size_t k = 0;
		for (const char *c = flag; *c && k + 3 < sizeof roff; c++) {
			if (*c == '-')
				roff[k++] = '\\';
			roff[k++] = *c;
		}
		roff[k] = 0;
		if (!strstr(p.out, roff))
			fprintf(stderr, "\n  %s is not in the man page", flag);
		CU_ASSERT_PTR_NOT_NULL(strstr(p.out, roff));
		flags++;
	}
	CU_ASSERT_TRUE(flags >= 20);
	qct_proc_free(&p);
	qct_proc_free(&h);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p, "%s --man nosuch", q), 0);
	CU_ASSERT_EQUAL(p.status, 2);
	qct_proc_free(&p);
}

/*
 * make install into a temporary DESTDIR; a plugin built out of tree against the installed
 * header through pkg-config (plugins/example/example.c, as the porting guide builds it); the
 * installed qconform, from a directory with no specs, runs a profile with its installed specs,
 * worker and reference. Not in the sanitizer pass: it checks what is installed, not memory.
 */
static void test_install(void)
{
	if (qct_under_sanitizers()) {
		printf("\n  the plain pass installs (packaging, not memory)\n");
		return;
	}
	const char *tmp = qct_tmpdir();
	char build[512];
	snprintf(build, sizeof build, "%s", qct_build_path(""));
	build[strlen(build) - 1] = 0; /* no trailing '/' */
	qct_proc p;
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
	                             "--no-print-directory BUILD='%s' DESTDIR='%s/root' "
	                             "PREFIX=/opt/qc install",
	                             build, tmp),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	qct_proc_free(&p);
	static const char *const files[] = {
	        "bin/qconform",
	        "libexec/qconform/qconform-worker",
	        "lib/qconform/libqconform_reference.so",
	        "include/qconform/plugin.h",
	        "lib/pkgconfig/qconform-plugin.pc",
	        "share/qconform/specs/profiles/onnx-qdq.yaml",
	        "share/qconform/specs/onnx/dequantize_linear.yaml",
	        "share/qconform/schema/report.schema.json",
	        "share/man/man1/qconform.1",
	        "share/man/man1/qconform-run.1",
	        "share/man/man1/qconform-certify.1",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/root/opt/qc/%s", tmp, files[i]);
		if (access(path, R_OK) != 0)
			fprintf(stderr, "\n  not installed: %s", files[i]);
		CU_ASSERT_EQUAL(access(path, R_OK), 0);
	}
	/* the vendor's build: pkg-config finds the header (the sysroot is the DESTDIR) */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p,
	               "mkdir -p %s/vendor && cp plugins/example/example.c %s/vendor/ && cd "
	               "%s/vendor && export PKG_CONFIG_PATH=%s/root/opt/qc/lib/pkgconfig "
	               "PKG_CONFIG_SYSROOT_DIR=%s/root && pkg-config --modversion qconform-plugin "
	               "&& cc $(pkg-config --cflags qconform-plugin) -std=c99 -Wall -Wextra "
	               "-Werror -O2 -shared -fPIC -fvisibility=hidden -o libexample.so example.c",
	               tmp, tmp, tmp, tmp, tmp),
	        0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL_FATAL(p.status, 0);
	qct_proc_free(&p);
	/* the installed qconform, elsewhere: its own specs, worker and reference plugin */
	CU_ASSERT_EQUAL_FATAL(
	        qct_sh(&p,
	               "cd %s/vendor && env -u QCONFORM_WORKER %s/root/opt/qc/bin/qconform "
	               "run --profile onnx-qdq --plugin ./libexample.so --json r.json",
	               tmp, tmp),
	        0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "CONFORMS"));
	qct_proc_free(&p);
	char rpath[800], want[800];
	snprintf(rpath, sizeof rpath, "%s/vendor/r.json", tmp);
	json_error_t e;
	json_t *r = json_load_file(rpath, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *spec0 = json_array_get(json_object_get(json_object_get(r, "run"), "specs"), 0);
	snprintf(want, sizeof want, "%s/root/opt/qc/bin/../share/qconform/specs/", tmp);
	CU_ASSERT_EQUAL(strncmp(qct_str(spec0, "path"), want, strlen(want)), 0);
	size_t i, pass = 0, refused = 0;
	json_t *c;
	json_array_foreach(json_object_get(r, "cases"), i, c)
	{
		pass += !strcmp(qct_verdict(c), "PASS");
		refused += !strcmp(qct_verdict(c), "EXPECTED_ERROR");
	}
	CU_ASSERT_TRUE(pass > 100);
	CU_ASSERT_TRUE(refused >= 1);
	json_decref(r);
	/* the reference plugin is the default; the man page is the run command's */
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cd %s/vendor && %s/root/opt/qc/bin/qconform run --quiet "
	                             "--json ref.json --filter 'onnx/dequantize_linear/*' && "
	                             "cat %s/root/opt/qc/share/man/man1/qconform-run.1",
	                             tmp, tmp, tmp),
	                      0);
	if (p.status != 0)
		fprintf(stderr, "\n%s%s", p.out, p.err);
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "qconform-reference"));
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(p.out, "qconform\\-run \\- run specs against a kernel plugin"));
	qct_proc_free(&p);
	/* the diagnosis finds the installed catalogue's variants (lib/qconform/variants/) */
	char stub[PATH_MAX];
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(qct_stub("float_requant"), stub));
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "cd %s/vendor && env -u QCONFORM_VARIANTS "
	                             "%s/root/opt/qc/bin/qconform run --quiet --no-reports "
	                             "--plugin %s --filter 'litert/conv_2d/*' --filter '-*int4*'",
	                             tmp, tmp, stub),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "[87-conv-fp32-requantization]"));
	CU_ASSERT_PTR_NULL(strstr(p.out, "could not run"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* The progress line: counts per verdict seen, the time left, the case, cut to the terminal's
 * width in characters (never bytes of a character), no colour when asked for none. */
static void test_progress_line(void)
{
	qc_progress p;
	FILE *f = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	qc_progress_init(&p, f, 200, 1); /* not a terminal: counts, draws nothing */
	CU_ASSERT_EQUAL(p.enabled, 0);
	for (int i = 0; i < 50; i++)
		qc_progress_case(&p, i % 10 == 0 ? QC_FAIL : QC_PASS, "x");
	qc_progress_case(&p, QC_CRASH, "x");
	CU_ASSERT_EQUAL(ftell(f), 0);
	fclose(f);
	char buf[512];
	qc_progress_line(&p, "litert/add/case", 200, 10.2, buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf,
	                       "[51/200  25%] 45 pass 5 FAIL 1 CRASH, 0:30 left litert/add/case");
	/* 40 columns: 39 characters, the name cut */
	qc_progress_line(&p, "litert/add/case", 40, 10.2, buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "[51/200  25%] 45 pass 5 FAIL 1 CRASH, 0");
	/* a name of two-byte characters is cut between characters */
	qc_progress_line(&p, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 51, 10.2, buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf,
	                       "[51/200  25%] 45 pass 5 FAIL 1 CRASH, 0:30 left \xc3\xa9\xc3\xa9");
	/* no time left before a second has passed, none at the end */
	qc_progress_line(&p, NULL, 80, 0.5, buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "[51/200  25%] 45 pass 5 FAIL 1 CRASH");
	/* NO_COLOR set: no colour even for a terminal */
	setenv("NO_COLOR", "1", 1);
	CU_ASSERT_EQUAL(qc_console_colour(stdout), 0);
	unsetenv("NO_COLOR");
	CU_ASSERT_STRING_EQUAL(qc_console_verdict_on(0, QC_FAIL), "");
	CU_ASSERT_STRING_NOT_EQUAL(qc_console_verdict_on(1, QC_FAIL), "");
}

/* On a terminal (a pseudo-terminal of 60 columns under script(1)) every progress line fits
 * in 59 columns, the verdicts are coloured, and NO_COLOR takes the colours away; with output
 * to a file, no progress line at all; --quiet prints no failing case. */
static void test_progress_on_terminal(void)
{
	qct_proc p;
	char q[600]; /* qct_build_path's buffers turn over */
	snprintf(q, sizeof q, "%s", qct_build_path("qconform"));
	if (qct_sh(&p, "command -v script") != 0 || p.status != 0) {
		printf("\n  script(1) is missing: skipped\n");
		qct_proc_free(&p);
		return;
	}
	qct_proc_free(&p);
	const char *tmp = qct_tmpdir();
	for (int nocolor = 0; nocolor < 2; nocolor++) {
		CU_ASSERT_EQUAL_FATAL(
		        qct_sh(&p,
		               "%s script -qec \"stty cols 60; %s run specs/litert/add.yaml "
		               "specs/torch/fake_quantize_per_tensor_affine.yaml --plugin %s "
		               "--json "
		               "%s/r.json\" /dev/null",
		               nocolor ? "NO_COLOR=1" : "env -u NO_COLOR", q,
		               qct_stub("ties_half_up"), tmp),
		        0);
		CU_ASSERT_EQUAL(p.status, 1);
		int progress = 0, wide = 0, coloured = strstr(p.out, "\033[1;31mFAIL") != NULL;
		/* the screen's lines: split at \r and \n, drop the erase sequence and colours */
		for (char *s = p.out; *s;) {
			size_t n = strcspn(s, "\r\n");
			char line[4096];
			size_t k = 0, cols = 0;
			for (size_t i = 0; i < n && k + 1 < sizeof line; i++) {
				if (s[i] == '\033') { /* CSI ... final byte */
					while (i < n &&
					       !(s[i] >= '@' && s[i] <= '~' && s[i] != '['))
						i++;
					continue;
				}
				cols += ((unsigned char)s[i] & 0xC0) != 0x80;
				line[k++] = s[i];
			}
			line[k] = 0;
			if (line[0] == '[' && strstr(line, "%]")) {
				progress++;
				wide += cols > 59;
			}
			s += n;
			while (*s == '\r' || *s == '\n')
				s++;
		}
		CU_ASSERT_TRUE(progress >= 1);
		CU_ASSERT_EQUAL(wide, 0);
		CU_ASSERT_EQUAL(coloured, !nocolor);
		qct_proc_free(&p);
	}
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/torch/fake_quantize_per_tensor_affine.yaml "
	                             "--plugin %s --json %s/r.json",
	                             q, qct_stub("ties_half_up"), tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NULL(strchr(p.out, '\r'));
	CU_ASSERT_PTR_NULL(strchr(p.out, '\033'));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "\nFAIL "));
	qct_proc_free(&p);
	CU_ASSERT_EQUAL_FATAL(qct_sh(&p,
	                             "%s run specs/torch/fake_quantize_per_tensor_affine.yaml "
	                             "--plugin %s --json %s/r.json --quiet",
	                             q, qct_stub("ties_half_up"), tmp),
	                      0);
	CU_ASSERT_EQUAL(p.status, 1);
	CU_ASSERT_PTR_NULL(strstr(p.out, "\nFAIL "));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "DOES NOT CONFORM"));
	qct_proc_free(&p);
	qct_rmdir(tmp);
}

/* The file whose parser reads command c's options (cmd/main.c reads the options of the
 * commands that select cases), relative to the repository. */
static void parser_of(const char *c, char *path, size_t n)
{
	static const char *const selecting[] = {"run",     "list",   "validate", "show",
	                                        "certify", "export", "shrink"};
	for (size_t i = 0; i < sizeof selecting / sizeof selecting[0]; i++)
		if (!strcmp(c, selecting[i])) {
			snprintf(path, n, "harness/src/cmd/main.c");
			return;
		}
	snprintf(path, n, "harness/src/cmd/%s.c", c);
	for (char *q = path + strlen("harness/src/cmd/"); *q; q++)
		if (*q == '-')
			*q = '_';
}

/*
 * One table: a command accepts exactly the options its --help lists (cmd/help.c, read through
 * qc_opt_next, which refuses any other), and every option listed is one its parser reads
 * (named in the file of its parser).
 */
static void test_help_is_the_parser(void)
{
	char *names = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&names, &len);
	CU_ASSERT_FATAL(f != NULL);
	qc_help_names(f);
	fclose(f);
	int commands = 0, options = 0;
	for (char *save = NULL, *c = strtok_r(names, "\n", &save); c;
	     c = strtok_r(NULL, "\n", &save)) {
		const qc_help_command *h = qc_help_find(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		char path[256];
		parser_of(c, path, sizeof path);
		char *src = qct_read_file(path);
		if (!h->options || !h->options[0].flag) {
			free(src);
			continue;
		}
		commands++;
		if (!src) {
			fprintf(stderr, "  cli: %s: no parser at %s\n", c, path);
			CU_FAIL("a command's parser is not where test_cli.c looks");
			continue;
		}
		for (const qc_help_option *o = h->options; o->flag; o++) {
			char lit[80];
			snprintf(lit, sizeof lit, "\"%s\"", o->flag);
			options++;
			if (!strstr(src, lit)) {
				fprintf(stderr, "  cli: %s --help lists %s, which %s never reads\n",
				        c, o->flag, path);
				CU_FAIL("an option in the help that the parser does not read");
			}
		}
		free(src);
	}
	free(names);
	CU_ASSERT(commands >= 15);
	CU_ASSERT(options >= 100);
}

/* The reader's forms: a value after '=', '_' for '-', numbers and the words after "--" as
 * words; a switch given a value, an unknown option and a missing value refused. */
static void test_option_reader(void)
{
	char *words[] = {"--scale=-0.5",   "--zero_point", "-3",    "-0.25",
	                 "--narrow-range", "--",           "--all", "-x"};
	qc_opt_reader r = {.cmd = "compare-conventions", .argc = 8, .argv = words};
	const char *f, *v;
	CU_ASSERT_EQUAL(qc_opt_next(&r, &f, &v), QC_OPT_FLAG);
	CU_ASSERT(f && !strcmp(f, "--scale") && v && !strcmp(v, "-0.5"));
	CU_ASSERT_EQUAL(qc_opt_next(&r, &f, &v), QC_OPT_FLAG);
	CU_ASSERT(f && !strcmp(f, "--zero-point") && v && !strcmp(v, "-3"));
	CU_ASSERT_EQUAL(qc_opt_next(&r, &f, &v), QC_OPT_WORD);
	CU_ASSERT(v && !strcmp(v, "-0.25"));
	CU_ASSERT_EQUAL(qc_opt_next(&r, &f, &v), QC_OPT_FLAG);
	CU_ASSERT(f && !strcmp(f, "--narrow-range") && !v);
	CU_ASSERT_EQUAL(qc_opt_next(&r, &f, &v), QC_OPT_WORD);
	CU_ASSERT(v && !strcmp(v, "--all"));
	CU_ASSERT_EQUAL(qc_opt_next(&r, &f, &v), QC_OPT_WORD);
	CU_ASSERT(v && !strcmp(v, "-x"));
	CU_ASSERT_EQUAL(qc_opt_next(&r, &f, &v), QC_OPT_END);

	/* refused, with a line on stderr that names the word's option */
	const char *bad[][2] = {{"--narrow-range=1", "--narrow-range takes no value"},
	                        {"--scale", "missing value after --scale"},
	                        {"--scal=1", "unknown option --scal=1"},
	                        {"-3x", "unknown option -3x"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *one[] = {(char *)bad[i][0]};
		qc_opt_reader b = {.cmd = "compare-conventions", .argc = 1, .argv = one};
		FILE *err = tmpfile();
		CU_ASSERT_PTR_NOT_NULL_FATAL(err);
		fflush(stderr);
		int saved = dup(2);
		dup2(fileno(err), 2);
		int k = qc_opt_next(&b, &f, &v);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		char msg[256] = "";
		rewind(err);
		size_t n = fread(msg, 1, sizeof msg - 1, err);
		msg[n] = 0;
		fclose(err);
		if (k != QC_OPT_BAD || !strstr(msg, bad[i][1]))
			fprintf(stderr, "\n  %s: read as %d, said '%s'", bad[i][0], k, msg);
		CU_ASSERT_EQUAL(k, QC_OPT_BAD);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, bad[i][1]));
	}
}

void qct_register_cli(void)
{
	CU_pSuite s = qct_suite("cli");
	CU_add_test(s, "--help and -h for every command; --version", test_help_everywhere);
	CU_add_test(s, "mistakes: exit 2, the error first, the nearest word",
	            test_mistakes_name_the_nearest);
	CU_add_test(s, "man pages from the help's description", test_man_pages);
	CU_add_test(s, "every option --help lists is read, and no other", test_help_is_the_parser);
	CU_add_test(s, "the option reader's forms", test_option_reader);
	CU_add_test(s, "show: a row per innermost line of the shape", test_show_rows);
	CU_add_test(s, "the progress line: counts, time left, cut to the width",
	            test_progress_line);
	CU_add_test(s, "on a terminal: fits, coloured, NO_COLOR; --quiet",
	            test_progress_on_terminal);
	CU_add_test(s, "make install; a plugin built with pkg-config; the installed run",
	            test_install);
}
