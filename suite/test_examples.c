/*
 * The committed example reports (reports/examples/<adapter>/NAME.json.gz): the reproduce command
 * a report prints for a case, run as printed from the top directory, gives the verdict the
 * report states. A sample: per report, the first case of each verdict that has a reproduce
 * command (every verdict that does not conform, and PASS_WITHIN_TOLERANCE). A report that names
 * the CPU it was made on (run.plugin.platform.cpu) is compared only on a machine whose CPU line
 * is the same: elsewhere its commands must run, and a different verdict is said, not failed.
 */
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qct.h"

#define MAX_SAMPLED 8 /* distinct verdicts sampled per report */

static json_t *load_gz(const char *gz, const char *tmp)
{
	qct_proc p;
	char out[1200];
	snprintf(out, sizeof out, "%s/example.json", tmp);
	if (qct_sh(&p, "gzip -dc '%s' > '%s'", gz, out) != 0)
		return NULL;
	int ok = p.status == 0;
	qct_proc_free(&p);
	return ok ? json_load_file(out, 0, NULL) : NULL;
}

/* The plugin a reproduce command names: the word after --plugin (single-quoted). */
static int command_plugin(const char *cmd, char *buf, size_t size)
{
	const char *p = strstr(cmd, " --plugin '");
	if (!p)
		return -1;
	p += strlen(" --plugin '");
	const char *end = strchr(p, '\'');
	if (!end || (size_t)(end - p) >= size)
		return -1;
	memcpy(buf, p, (size_t)(end - p));
	buf[end - p] = 0;
	return 0;
}

/* The CPU a report's plugin ran on, as the harness read it (run.plugin.platform.cpu), or "":
 * reports made before the harness recorded it have none. */
static const char *report_cpu(json_t *r)
{
	json_t *plat =
	        json_object_get(json_object_get(json_object_get(r, "run"), "plugin"), "platform");
	return qct_str(plat, "cpu");
}

/* Runs one case's command as printed; the verdict the run's own report gives it ("" if
 * none), and the CPU that run names. The report's path is the run's "report: PATH" line. */
static void rerun(const char *cmd, const char *name, char *verdict, size_t size, char *cpu,
                  size_t cpu_size)
{
	verdict[0] = 0;
	cpu[0] = 0;
	/* reports made since reproduce commands carry --no-reports: run them with the report */
	char run[4096];
	const char *nr = strstr(cmd, " --no-reports");
	if (nr && strlen(cmd) < sizeof run)
		snprintf(run, sizeof run, "%.*s%s", (int)(nr - cmd), cmd,
		         nr + strlen(" --no-reports"));
	else
		snprintf(run, sizeof run, "%s", cmd);
	qct_proc p;
	if (qct_sh(&p, "%s", run) != 0)
		return;
	const char *line = strstr(p.out, "\nreport: ");
	char path[1024] = "";
	if (line && sscanf(line + 9, "%1023[^\n]", path) == 1) {
		json_t *r = json_load_file(path, 0, NULL);
		snprintf(cpu, cpu_size, "%s", report_cpu(r));
		json_t *cases = json_object_get(r, "cases");
		for (size_t i = 0; i < json_array_size(cases); i++) {
			json_t *c = json_array_get(cases, i);
			if (!strcmp(qct_str(c, "name"), name))
				snprintf(verdict, size, "%s", qct_verdict(c));
		}
		if (json_array_size(cases) != 1)
			fprintf(stderr, "\n  %s: ran %zu cases, not 1", cmd,
			        json_array_size(cases));
		json_decref(r);
	}
	if (!verdict[0])
		fprintf(stderr, "\n  %s: exit %d\n%s%s", cmd, p.status, p.out, p.err);
	qct_proc_free(&p);
}

static void test_reproduce_commands(void)
{
	if (qct_under_sanitizers()) {
		fprintf(stderr, "\n  examples: the commands name build/, run in the unsanitized "
		                "pass\n");
		return;
	}
	glob_t g;
	CU_ASSERT_EQUAL_FATAL(glob("reports/examples/*/*.json.gz", 0, NULL, &g), 0);
	CU_ASSERT(g.gl_pathc >= 4);
	const char *tmp = qct_tmpdir();
	size_t sampled = 0, reports = 0;
	for (size_t f = 0; f < g.gl_pathc; f++) {
		json_t *r = load_gz(g.gl_pathv[f], tmp);
		CU_ASSERT_PTR_NOT_NULL(r);
		if (!r)
			continue;
		const char *seen[MAX_SAMPLED];
		int n_seen = 0, skipped = 0;
		json_t *cases = json_object_get(r, "cases");
		for (size_t i = 0; i < json_array_size(cases) && n_seen < MAX_SAMPLED; i++) {
			json_t *c = json_array_get(cases, i);
			const char *cmd = qct_str(c, "reproduce"), *v = qct_verdict(c);
			if (!*cmd)
				continue;
			int dup = 0;
			for (int k = 0; k < n_seen; k++)
				dup |= !strcmp(seen[k], v);
			if (dup)
				continue;
			char plugin[1024];
			CU_ASSERT_EQUAL_FATAL(command_plugin(cmd, plugin, sizeof plugin), 0);
			FILE *so = fopen(plugin, "rb");
			if (!so) {
				/* the adapter's Debian package is missing: its test says so too */
				if (!skipped++)
					fprintf(stderr, "\n  examples: %s not built, %s skipped",
					        plugin, g.gl_pathv[f]);
				break;
			}
			fclose(so);
			seen[n_seen++] = v;
			char got[64], cpu[512];
			rerun(cmd, qct_str(c, "name"), got, sizeof got, cpu, sizeof cpu);
			/* an adapter's library picks its kernels by the CPU's features (oneDNN's
			 * VNNI, XNNPACK's dot products): a report made on another CPU is not this
			 * machine's experiment. Its command must still run; its verdict is not
			 * compared. Reports that name no CPU are compared. */
			const char *made_on = report_cpu(r);
			if (*made_on && *cpu && strcmp(made_on, cpu) != 0) {
				if (!got[0] || strcmp(got, v) != 0)
					fprintf(stderr,
					        "\n  %s: %s: made on %s, this machine is %s: "
					        "the report says %s, here %s (not compared)",
					        g.gl_pathv[f], qct_str(c, "name"), made_on, cpu, v,
					        got[0] ? got : "nothing");
				CU_ASSERT(got[0] != 0);
				sampled++;
				continue;
			}
			if (strcmp(got, v) != 0)
				fprintf(stderr,
				        "\n  %s: %s: the report says %s, the command gives %s",
				        g.gl_pathv[f], qct_str(c, "name"), v,
				        got[0] ? got : "nothing");
			CU_ASSERT_STRING_EQUAL(got, v);
			sampled++;
		}
		reports += n_seen > 0;
		json_decref(r);
	}
	globfree(&g);
	CU_ASSERT(sampled > 0 || reports == 0);
	qct_rmdir(tmp);
}

void qct_register_examples(void)
{
	CU_pSuite s = qct_suite("examples");
	CU_add_test(s, "reproduce commands of the example reports give the reported verdicts",
	            test_reproduce_commands);
}
