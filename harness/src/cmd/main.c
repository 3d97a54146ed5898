/* qconform: command line. */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd/commands.h"
#include "cmd/help.h"
#include "report/report.h"

static int bad(const char *cmd, const char *msg, const char *arg)
{
	fprintf(stderr, "qconform %s: %s%s%s\n", cmd, msg, arg ? " " : "", arg ? arg : "");
	return 2;
}

/* The error first, then the nearest command, then where the list is. */
static int unknown_command(const char *cmd)
{
	const char *near = qc_help_nearest_command(cmd);
	fprintf(stderr, "qconform: unknown command '%s'", cmd);
	if (near)
		fprintf(stderr, " (did you mean '%s'?)", near);
	fprintf(stderr, "; qconform --help lists the commands\n");
	return 2;
}

static char command_line[4096];

/* Writes to a closed pipe (qconform run ... | head -1) fail with EPIPE instead of killing the
 * run. A handler, not SIG_IGN: an ignored SIGPIPE would be inherited by the workers (exec
 * keeps SIG_IGN), a caught one goes back to the default there. */
static void on_sigpipe(int sig)
{
	(void)sig;
}

typedef struct parsed {
	qc_run_opts o;
	const char *show_name;
	const char *out_dir;        /* certify, export, shrink --out DIR */
	qc_certify_imports imports; /* certify --import DIR [--outputs PATH] ... */
	int c_arrays;               /* export --c-arrays */
	int max_calls;              /* shrink --max-calls N */
} parsed;

static void parsed_free(parsed *p)
{
	for (int k = 0; k < p->o.n_options; k++)
		free((char *)p->o.options[k].key);
	free(p->o.paths);
	free(p->o.case_names);
	memset(p, 0, sizeof *p);
}

/* The options of run, list, validate, show and certify: args[0..n). 0, or 2 (said why). */
static int parse_run_args(const char *cmd, int n, char **args, parsed *p)
{
	qc_run_opts *o = &p->o;
	memset(p, 0, sizeof *p);
	o->timeout_s = 30;
	o->jobs = 1;
	o->command = command_line;
	o->argv = args;
	o->argc = n;
	o->paths = calloc((size_t)n + 1, sizeof *o->paths);
	o->case_names = calloc((size_t)n + 1, sizeof *o->case_names);
	if (!o->paths || !o->case_names)
		return 2;
	/* each option as the command's help lists it (help.c): the conditions below read the
	 * values; which command takes which option, and with a value or not, is the table's */
	qc_opt_reader rd = {.cmd = cmd, .argc = n, .argv = args};
	const char *a, *v;
	for (int k; (k = qc_opt_next(&rd, &a, &v)) != QC_OPT_END;) {
		if (k == QC_OPT_BAD)
			return 2;
		if (k == QC_OPT_WORD) {
			if ((!strcmp(cmd, "show") || !strcmp(cmd, "shrink")) && !p->show_name)
				p->show_name = v;
			else
				o->paths[o->n_paths++] = (char *)v;
			continue;
		}
		if (!strcmp(a, "--plugin")) {
			o->plugin = v;
		} else if (!strcmp(a, "--plugin-option")) {
			const char *eq = strchr(v, '=');
			if (!eq || eq == v)
				return bad(cmd, "--plugin-option needs KEY=VALUE, got", v);
			if (o->n_options == QC_MAX_OPTIONS)
				return bad(cmd, "too many --plugin-option", NULL);
			char *key = strndup(v, (size_t)(eq - v));
			o->options[o->n_options++] = (qcf_option){key, eq + 1};
		} else if (!strcmp(a, "--filter")) {
			if (o->n_filters == QC_MAX_FILTERS)
				return bad(cmd, "too many --filter", NULL);
			o->filters[o->n_filters++] = v;
		} else if (!strcmp(a, "--case")) {
			o->case_names[o->n_case_names++] = v;
		} else if (!strcmp(a, "--profile")) {
			o->profile = v;
		} else if (!strcmp(a, "--require-engine")) {
			if (!qc_require_engine_valid(v))
				return bad(
				        cmd,
				        "--require-engine needs 'accelerator' or 'reported', got",
				        v);
			o->require_engine = v;
		} else if (!strcmp(a, "--extension")) {
			if (o->n_extensions == QC_MAX_EXTENSIONS)
				return bad(cmd, "too many --extension", NULL);
			o->extensions[o->n_extensions++] = v;
		} else if (!strcmp(a, "--seed")) {
			char *end;
			o->seed = strtoull(v, &end, 0);
			if (*end || !*v)
				return bad(cmd, "--seed needs an integer, got", v);
		} else if (!strcmp(a, "--timeout")) {
			char *end;
			o->timeout_s = strtod(v, &end);
			if (*end || !*v || !(o->timeout_s > 0))
				return bad(cmd, "--timeout needs a number of seconds > 0, got", v);
		} else if (!strcmp(a, "--jobs")) {
			char *end;
			long j = strtol(v, &end, 10);
			if (*end || !*v || j < 1 || j > 64)
				return bad(cmd, "--jobs needs a number of workers in [1, 64], got",
				           v);
			o->jobs = (int)j;
			o->jobs_set = 1;
		} else if (!strcmp(a, "--json")) {
			o->json_path = v;
		} else if (!strcmp(a, "--html")) {
			o->html_path = v;
		} else if (!strcmp(a, "--junit")) {
			o->junit_path = v;
		} else if (!strcmp(a, "--shard")) {
			if (qc_shard_parse(v, &o->shard_index, &o->shard_count) != 0)
				return bad(cmd, "--shard needs K/N with 1 <= K <= N, got", v);
		} else if (!strcmp(a, "--baseline")) {
			o->baseline = v;
		} else if (!strcmp(a, "--waivers")) {
			o->waivers = v;
		} else if (!strcmp(a, "--allow-coverage-loss")) {
			if (o->n_allow_loss == QC_MAX_FILTERS)
				return bad(cmd, "too many --allow-coverage-loss", NULL);
			o->allow_loss[o->n_allow_loss++] = v;
		} else if (!strcmp(a, "--no-reports")) {
			o->no_reports = 1;
		} else if (!strcmp(a, "--no-diagnose")) {
			o->no_diagnose = 1;
		} else if (!strcmp(a, "--dump")) {
			o->dump_dir = v;
		} else if (!strcmp(a, "--shrink")) {
			char *end;
			long m = strtol(v, &end, 10);
			if (*end || !*v || m < 1 || m > 1000)
				return bad(cmd,
				           "--shrink needs a number of cases in [1, 1000], got", v);
			o->shrink = (int)m;
		} else if (!strcmp(a, "--dump-max")) {
			char *end;
			long m = strtol(v, &end, 10);
			if (*end || !*v || m < 1)
				return bad(cmd, "--dump-max needs a number of cases >= 1, got", v);
			o->dump_max = m;
		} else if (!strcmp(a, "--journal")) {
			o->journal_path = v;
		} else if (!strcmp(a, "--resume")) {
			o->resume = v;
		} else if (!strcmp(a, "--remote")) {
			if (!*v)
				return bad(cmd, "--remote needs a command, got", "''");
			if (o->n_remotes == QC_MAX_REMOTES)
				return bad(cmd, "too many --remote", NULL);
			if (!o->remote)
				o->remote = v;
			o->remotes[o->n_remotes++] = v;
		} else if (!strcmp(a, "--max-failures")) {
			char *end;
			long m = strtol(v, &end, 10);
			if (*end || !*v || m < 1)
				return bad(cmd, "--max-failures needs a number of cases >= 1, got",
				           v);
			o->max_failures = m;
		} else if (!strcmp(a, "--repeat")) {
			char *end;
			long k = strtol(v, &end, 10);
			if (*end || !*v || k < 1 || k > 64)
				return bad(cmd, "--repeat needs a number of runs from 1 to 64, got",
				           v);
			o->repeat = (int)k;
		} else if (!strcmp(a, "--keep-journal")) {
			o->keep_journal = 1;
		} else if (!strcmp(a, "--out")) {
			p->out_dir = v;
		} else if (!strcmp(a, "--c-arrays")) {
			p->c_arrays = 1;
		} else if (!strcmp(a, "--import")) {
			if (p->imports.n == QC_MAX_IMPORTS)
				return bad(cmd, "too many --import directories, at", v);
			p->imports.outputs[p->imports.n] = NULL;
			p->imports.dirs[p->imports.n++] = v;
		} else if (!strcmp(a, "--outputs")) {
			if (!p->imports.n || p->imports.outputs[p->imports.n - 1])
				return bad(cmd,
				           "--outputs names the records of the --import directory "
				           "before it (one each), got",
				           v);
			p->imports.outputs[p->imports.n - 1] = v;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
		} else if (!strcmp(a, "--trace")) {
			o->trace = 1;
		} else if (!strcmp(a, "--no-sandbox")) {
			o->no_sandbox = 1;
		} else if (!strcmp(a, "--sandbox-allow")) {
			if (o->n_sandbox_allow == QC_MAX_OPTIONS)
				return bad(cmd, "too many --sandbox-allow paths, at", v);
			if (access(v, F_OK) != 0)
				return bad(cmd, "--sandbox-allow needs an existing path, got", v);
			o->sandbox_allow[o->n_sandbox_allow++] = v;
		} else if (!strcmp(a, "--worker-memory")) {
			if (qc_parse_size(v, &o->worker_memory) != 0)
				return bad(
				        cmd,
				        "--worker-memory needs a size such as 4G, 512M or 0, got",
				        v);
			o->worker_memory_set = 1;
		} else if (!strcmp(a, "--max-calls")) {
			char *end;
			long m = strtol(v, &end, 10);
			if (*end || !*v || m < 1 || m > 100000)
				return bad(cmd,
				           "--max-calls needs a number of kernel calls in [1, "
				           "100000], got",
				           v);
			p->max_calls = (int)m;
		} else {
			return qc_opt_unread(cmd, a);
		}
	}
	/* a pool of --remote commands: a job (a worker) per board unless --jobs says more */
	if (o->n_remotes > 1 && !o->jobs_set)
		o->jobs = o->n_remotes;
	if (o->n_remotes > o->jobs) {
		char n[16];
		snprintf(n, sizeof n, "%d", o->jobs);
		return bad(cmd,
		           "--jobs is below the number of --remote commands (a board per job), got",
		           n);
	}
	if (o->n_extensions && !o->profile)
		return bad(cmd, "--extension names an extension of a profile: it needs --profile",
		           o->extensions[0]);
	if (o->n_allow_loss && !o->baseline)
		return bad(cmd,
		           "--allow-coverage-loss accepts coverage lost against a baseline: it "
		           "needs --baseline, got",
		           o->allow_loss[0]);
	if (o->no_reports && (o->resume || o->keep_journal))
		return bad(
		        cmd,
		        "--no-reports writes only the reports named: it takes neither --resume nor "
		        "--keep-journal",
		        NULL);
	return 0;
}

int main(int argc, char **argv)
{
	/* A case's tensors and Lua-made data come and go a case at a time, often past glibc's
	 * mmap threshold: kept in the heap (up to 32 MiB free, and blocks up to 32 MiB) they are
	 * reused instead of mapped, faulted in and unmapped again for every case. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	struct sigaction sp;
	memset(&sp, 0, sizeof sp);
	sp.sa_handler = on_sigpipe;
	sp.sa_flags = SA_RESTART;
	sigaction(SIGPIPE, &sp, NULL);
	if (argc < 2) {
		qc_help_usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		const qc_help_command *c = argc > 2 ? qc_help_find(argv[2]) : NULL;
		if (argc > 2 && !c)
			return unknown_command(argv[2]);
		if (c)
			qc_help_print(stdout, c);
		else
			qc_help_usage(stdout);
		return 0;
	}
	/* the man pages (make man): qconform --commands lists the names, --man [COMMAND] */
	if (!strcmp(cmd, "--commands")) {
		qc_help_names(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--man")) {
		const qc_help_command *c = argc > 2 ? qc_help_find(argv[2]) : NULL;
		if (argc > 2 && !c)
			return unknown_command(argv[2]);
		qc_help_man(stdout, c);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V"))
		cmd = "version";
	const qc_help_command *doc = qc_help_find(cmd);
	if (!doc)
		return unknown_command(cmd);
	/* COMMAND --help or -h anywhere among its arguments */
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			qc_help_print(stdout, doc);
			return 0;
		}
	if (!strcmp(cmd, "version")) {
		printf("qconform %s (plugin ABI %d..%d, spec format %d, report format %d)\n",
		       QC_VERSION, QCF_ABI_VERSION_MIN, QCF_ABI_VERSION, 1, QC_REPORT_FORMAT);
		return 0;
	}
	if (!strcmp(cmd, "quant"))
		return qc_cmd_quant(argc - 1, argv + 1);
	if (!strcmp(cmd, "import-onnx"))
		return qc_cmd_import_onnx(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare-conventions"))
		return qc_cmd_compare_conventions(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return qc_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return qc_cmd_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return qc_cmd_diff(argc - 1, argv + 1);
	if (!strcmp(cmd, "diagnose"))
		return qc_cmd_diagnose(argc - 1, argv + 1, argv[0]);

	size_t used = 0;
	for (int i = 0; i < argc && used < sizeof command_line; i++)
		used += (size_t)snprintf(command_line + used, sizeof command_line - used, "%s%s",
		                         i ? " " : "", argv[i]);

	if (!strcmp(cmd, "import"))
		return qc_cmd_import(argc - 1, argv + 1, argv[0], command_line);
	if (!strcmp(cmd, "feed"))
		return qc_cmd_feed(argc - 1, argv + 1);

	parsed p;
	int prc = parse_run_args(cmd, argc - 2, argv + 2, &p);
	if (prc) {
		parsed_free(&p);
		return prc;
	}
	qc_run_opts o = p.o;
	o.self = argv[0];
	const char *show_name = p.show_name, *out_dir = p.out_dir;
	int rc;
	if (!strcmp(cmd, "run"))
		rc = qc_cmd_run(&o);
	else if (!strcmp(cmd, "list"))
		rc = qc_cmd_list(&o);
	else if (!strcmp(cmd, "validate"))
		rc = qc_cmd_validate(&o);
	else if (!strcmp(cmd, "certify"))
		rc = qc_cmd_certify(&o, out_dir, &p.imports);
	else if (!strcmp(cmd, "export"))
		rc = qc_cmd_export(&o, out_dir, p.c_arrays);
	else if (!strcmp(cmd, "show"))
		rc = show_name ? qc_cmd_show(&o, show_name) : bad(cmd, "needs a case name", NULL);
	else if (!strcmp(cmd, "shrink"))
		rc = show_name ? qc_cmd_shrink(&o, show_name, out_dir, p.max_calls)
		               : bad(cmd, "needs the name of a failing case", NULL);
	else /* a command of the description with no code: a bug */
		rc = bad(cmd, "is described but not implemented", NULL);
	parsed_free(&p);
	return rc;
}
