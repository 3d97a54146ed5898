/* The command line's description (help.h): the text, and its terminal and roff renderings. */
#include <stdlib.h>
#include <string.h>

#include "cmd/help.h"
#include "report/report.h"

/* ---- the options, by the commands that share them ---- */

#define OPT_SELECT                                                                                 \
	{"--filter", "GLOB",                                                                       \
	 "Keep the cases whose name matches GLOB (repeatable; a leading '-' excludes)."},          \
	        {"--case", "NAME", "Keep only the case of exactly this name (repeatable)."},       \
	        {"--profile", "NAME",                                                              \
	         "Only the specs of this certification profile (specs/profiles/NAME.yaml): its "   \
	         "base."},                                                                         \
	        {"--extension", "NAME",                                                            \
	         "Also this extension of the profile (repeatable; 'all' for every one)."},         \
	{                                                                                          \
		"--seed", "N", "Seed of the generated inputs (default 0)."                         \
	}

#define OPT_PLUGIN                                                                                 \
	{"--plugin", "PATH",                                                                       \
	 "The kernel under test, a shared library with the qconform plugin ABI (default: the "     \
	 "reference plugin installed beside qconform)."},                                          \
	        {"--plugin-option", "KEY=VALUE", "Passed to the plugin's create() (repeatable)."}, \
	        {"--timeout", "SECONDS", "Time a case may take (default 30)."},                    \
	        {"--jobs", "N",                                                                    \
	         "Job threads, each with its own worker process (default 1; reports are the "      \
	         "same for any N)."},                                                              \
	        {"--worker-memory", "SIZE",                                                        \
	         "Address space a worker may take, e.g. 4G or 512M; 0: no limit (default: half "   \
	         "the RAM over the jobs)."},                                                       \
	        {"--no-sandbox", NULL,                                                             \
	         "Run the plugin without the sandbox (default: in it, where the kernel allows)."}, \
	        {"--sandbox-allow", "PATH",                                                        \
	         "A file or directory the plugin may write (repeatable)."},                        \
	        {"--remote", "COMMAND",                                                            \
	         "Start each worker with this shell command, which runs qconform-worker --stdio "  \
	         "on another machine or under an emulator (ssh, adb, qemu-aarch64); --plugin "     \
	         "then names the plugin there. Repeatable: a pool of boards, one command each, "   \
	         "--jobs defaulting to their number (more jobs reuse them in turn); {job} in a "   \
	         "command is the job's number from 0. A board whose link stays lost leaves the "   \
	         "pool and its cases run on the others."},                                         \
	{                                                                                          \
		"--trace", NULL, "Print each step of loading the plugin (also QCONFORM_TRACE=1)."  \
	}

#define OPT_GATE                                                                                   \
	{"--baseline", "FILE", "Compare with this earlier report; exit 1 on a regression."},       \
	{                                                                                          \
		"--waivers", "FILE",                                                               \
		        "Known failures to accept: case glob, reason and expiry date."             \
	}

#define OPT_REPEAT                                                                                 \
	{                                                                                          \
		"--repeat", "K",                                                                   \
		        "Run every case the kernel computed K times (up to 64), the later runs "   \
		        "with 1, 2, 4, 8 threads when the plugin declares a threads option; "      \
		        "outputs that differ in a bit, or another outcome, are NONDETERMINISTIC."  \
	}

#define OPT_ENGINE                                                                                 \
	{                                                                                          \
		"--require-engine", "KIND",                                                        \
		        "'accelerator': every judged case reported by the plugin to have run on "  \
		        "an engine other than the CPU (no fallback); 'reported': on an engine it " \
		        "names. Else the run does not conform (default: the profile's, or none)."  \
	}

#define OPT_QUIET                                                                                  \
	{                                                                                          \
		"--quiet", NULL,                                                                   \
		        "No progress line and no line per failing case: the totals, the verdict "  \
		        "and the reports' paths."                                                  \
	}

static const qc_help_option run_options[] = {
        OPT_PLUGIN,
        OPT_SELECT,
        {"--shard", "K/N", "Only shard K of N (cases split by a hash of their name)."},
        {"--json", "FILE", "The JSON report (default reports/out/PLUGIN/report.json)."},
        {"--html", "FILE", "The HTML report (default: beside the default JSON report)."},
        {"--junit", "FILE", "The JUnit XML report (default: beside the default JSON report)."},
        OPT_GATE,
        {"--allow-coverage-loss", "GLOB",
         "With --baseline: accept (and list) lost coverage of the cases GLOB matches "
         "(repeatable)."},
        {"--no-reports", NULL,
         "Write only the reports named (--json, --html, --junit): nothing at the default "
         "paths, no journal (reproduce commands use it)."},
        {"--no-diagnose", NULL,
         "No diagnosis: do not try the catalogue's rules on the failing cases (README, "
         "Diagnosis)."},
        {"--dump", "DIR", "Failing cases' inputs and outputs as .npy files, with a case.yaml."},
        {"--shrink", "N",
         "After the run, the first N FAIL cases cut down as qconform shrink does, into shrunk/ "
         "beside the JSON report."},
        {"--dump-max", "N", "At most N cases dumped (default 100)."},
        {"--journal", "FILE", "The progress journal (default: the JSON report's path + .journal)."},
        {"--resume", "JOURNAL",
         "With the interrupted run's own command: run only the cases its journal lacks."},
        {"--keep-journal", NULL, "Keep the journal after a complete report."},
        {"--max-failures", "N",
         "Stop at the N-th failing case (exit 1); the reports hold the cases up to it."},
        OPT_REPEAT,
        OPT_ENGINE,
        OPT_QUIET,
        {NULL, NULL, NULL}};

static const qc_help_option diff_options[] = {
        {"--allow-coverage-loss", "GLOB",
         "Accept (and list) lost coverage of the cases GLOB matches (repeatable)."},
        {NULL, NULL, NULL}};

static const qc_help_option diagnose_options[] = {
        {"--plugin", "PATH",
         "The kernel to run the cases through (default: the report's plugin, which must be "
         "unchanged: its sha256)."},
        {"--plugin-option", "KEY=VALUE",
         "Passed to the plugin's create() (default: the report's; repeatable)."},
        {"--remote", "CMD", "Workers started by CMD on a device, as run --remote does."},
        {"--datasheet", NULL,
         "Also say, for every op (passing ones too), which rule the kernel follows where the "
         "rules differ."},
        {"--json", "FILE", "The re-run's JSON report, with each op's diagnosis."},
        {"--timeout", "SECONDS", "Per case (default: the report's)."},
        {"--jobs", "N", "Parallel workers (default 1)."},
        {"--no-sandbox", NULL, "Run the plugin without the sandbox."},
        {NULL, NULL, NULL}};

static const qc_help_option shrink_options[] = {
        OPT_PLUGIN,
        {"--out", "DIR",
         "Where the shrunk case goes: DIR/<case>/case.yaml with its .npy data, DIR/<case>/export "
         "for the offline runner (default reports/out/shrunk)."},
        {"--max-calls", "N", "At most N kernel calls (default 256)."},
        {"--seed", "N", "Seed of the generated inputs (default 0): the failing run's."},
        {"--timeout", "SECONDS", "Per case (default 30)."},
        {NULL, NULL, NULL}};

static const qc_help_option certify_options[] = {
        {"--plugin", "PATH",
         "The kernel to certify, a shared library with the qconform plugin ABI (required, "
         "unless --import)."},
        {"--plugin-option", "KEY=VALUE", "Passed to the plugin's create() (repeatable)."},
        {"--timeout", "SECONDS", "Time a case may take (default 30)."},
        {"--jobs", "N", "Job threads, each with its own worker process (default 1)."},
        {"--worker-memory", "SIZE",
         "Address space a worker may take, e.g. 4G or 512M; 0: no limit (default: half the "
         "RAM over the jobs)."},
        {"--no-sandbox", NULL, "Run the plugin without the sandbox."},
        {"--sandbox-allow", "PATH", "A file or directory the plugin may write (repeatable)."},
        {"--remote", "COMMAND",
         "Start each worker with this shell command on the device (as run --remote; "
         "repeatable: a pool of boards)."},
        {"--trace", NULL, "Print each step of loading the plugin."},
        {"--profile", "NAME", "The profile to certify (specs/profiles/NAME.yaml); required."},
        {"--extension", "NAME",
         "An extension of the profile to certify too (repeatable; 'all' for every one)."},
        {"--seed", "N", "Seed of the generated inputs (default 0)."},
        {"--import", "DIR",
         "Instead of --plugin: an offline run's export directory (qconform export --profile "
         "NAME), judged from its runner's records as qconform import does; repeat it for "
         "every shard of an export made with --shard K/N."},
        {"--outputs", "PATH",
         "The records of the --import directory before it (default DIR/outputs)."},
        {"--out", "DIR",
         "Where certificate.json, certificate.html and the run's reports go "
         "(default reports/out/PLUGIN)."},
        {"--waivers", "FILE",
         "Known failures to accept: case glob, reason and expiry date (listed on the "
         "certificate)."},
        OPT_REPEAT,
        OPT_ENGINE,
        OPT_QUIET,
        {NULL, NULL, NULL}};

static const qc_help_option list_options[] = {
        {"--filter", "GLOB",
         "Keep the cases whose name matches GLOB (repeatable; a leading '-' excludes)."},
        {"--case", "NAME", "Keep only the case of exactly this name (repeatable)."},
        {"--profile", "NAME",
         "Only the specs of this certification profile, every case with its class (base or "
         "extension) in a second column."},
        {"--extension", "NAME",
         "With --profile: only the base and this extension (repeatable; 'all' for every one)."},
        {"--seed", "N", "Seed of the generated inputs (default 0)."},
        {"--shard", "K/N", "Only the names of shard K of N."},
        {NULL, NULL, NULL}};

static const qc_help_option validate_options[] = {
        {"--profile", "NAME", "Only the specs of this profile, and check its rules."},
        {"--extension", "NAME", "And this extension of the profile (repeatable; 'all')."},
        {NULL, NULL, NULL}};

static const qc_help_option show_options[] = {
        {"--seed", "N", "Seed of the generated inputs (default 0)."}, {NULL, NULL, NULL}};

static const qc_help_option quant_options[] = {
        {"--dtype", "T", "The quantized type: int4, uint4, int8, uint8, int16, uint16, int32."},
        {"--scale", "S", "The scale of (scale, zero point)."},
        {"--zero-point", "Z", "The zero point of (scale, zero point) (default 0)."},
        {"--mean", "M", "The mean of (mean, std_dev): real = (q - mean) / std_dev."},
        {"--std-dev", "D", "The std_dev of (mean, std_dev)."},
        {"--min", "A", "The low end of a (min, max) range."},
        {"--max", "B", "The high end of a (min, max) range."},
        {"--nudge", "tf|onnx|symmetric",
         "How a (min, max) range becomes (scale, zero point) (default tf)."},
        {"--narrow-range", NULL, "Leave out the type's lowest value (e.g. int8 in [-127, 127])."},
        {NULL, NULL, NULL}};

static const qc_help_option conventions_options[] = {
        {"--dtype", "T", "int8, uint8, int16, uint16, int4 or uint4."},
        {"--scale", "S", "The scale."},
        {"--zero-point", "Z", "The zero point."},
        {"--narrow-range", NULL, "Leave out the type's lowest value."},
        {"--all", NULL, "Print every value, not only those where the conventions disagree."},
        {NULL, NULL, NULL}};

static const qc_help_option import_options[] = {
        {"--out", "OUTDIR", "Where the specs go (default specs/onnx/imported)."},
        {"--provenance", "TEXT", "Where the test data came from, written into each spec."},
        {NULL, NULL, NULL}};

static const qc_help_option report_options[] = {
        {"--html", "FILE", "Write the HTML report here."},
        {"--junit", "FILE", "Write the JUnit XML report here."},
        {NULL, NULL, NULL}};

static const qc_help_option merge_options[] = {
        {"--json", "OUT", "The merged report (default reports/out/PLUGIN/report.json)."},
        {NULL, NULL, NULL}};

static const qc_help_option export_options[] = {
        {"--out", "DIR",
         "Where the manifest and the case files go (required; a new, empty or earlier export's "
         "directory)."},
        {"--c-arrays", NULL,
         "Also cases.c and cases.h: every case file as a const byte array and a table, for a "
         "firmware build with no file system."},
        OPT_SELECT,
        {"--shard", "K/N", "Only shard K of N (cases split by a hash of their name)."},
        {NULL, NULL, NULL}};

static const qc_help_option import_run_options[] = {
        {"--outputs", "PATH",
         "The records of the export directory before it: a directory (default DIR/outputs) or "
         "a stream file (the serial capture of the freestanding runner, qconform feed's "
         "capture, or the hosted runner's --stream)."},
        {"--json", "FILE", "The JSON report (default reports/out/PLUGIN/report.json)."},
        {"--html", "FILE", "The HTML report (default: beside the default JSON report)."},
        {"--junit", "FILE", "The JUnit XML report (default: beside the default JSON report)."},
        {"--jobs", "N", "Threads computing the reference and judging (default 1)."},
        OPT_QUIET,
        {NULL, NULL, NULL}};

static const qc_help_option feed_options[] = {
        {"--device", "COMMAND",
         "Starts the device's line: COMMAND's stdin and stdout are the UART (an emulator's "
         "serial port, or a program connected to the board's serial port); it runs again "
         "when the device restarts."},
        {"--out", "FILE", "The capture (default DIR/outputs.log)."},
        {"--timeout", "SECONDS",
         "A case started with no answer after this long is TIMEOUT and the device restarted "
         "(default 30)."},
        {"--restarts", "N",
         "Stop when the device restarts N times in a row without answering a case (default "
         "3)."},
        OPT_QUIET,
        {NULL, NULL, NULL}};

static const qc_help_option no_options[] = {{NULL, NULL, NULL}};

/* ---- the commands ---- */

static const qc_help_command commands[] = {
        {"run", "[SPEC|DIR ...] [OPTIONS]", "run specs against a kernel plugin",
         "Expands every case of the specs (default: the installed specs), runs each through "
         "the reference and through the plugin in isolated worker processes, judges the "
         "plugin's outputs against the spec's tolerance and writes a JSON, an HTML and a "
         "JUnit report.\n\n"
         "Nothing a kernel does (a crash, a hang, a stray write, a fork) changes another "
         "case's verdict: it costs its own case. An interrupted run (SIGINT, SIGTERM, SIGHUP) "
         "writes the reports of what finished and a journal to resume from.",
         run_options,
         "qconform run specs/litert --plugin ./libmykernel.so\n"
         "  every LiteRT spec against a vendor kernel\n"
         "qconform run --profile litert-int8 --plugin ./libmykernel.so --shard 2/4\n"
         "  the second of four shards of a profile (join them with qconform merge)\n"},
        {"list", "[SPEC|DIR ...] [OPTIONS]", "list the case names the specs expand to",
         "One case name a line, in run order, after --filter, --case and --shard. With "
         "--profile a second column gives the case's class: base or the extension.",
         list_options, "qconform list specs/onnx --filter 'onnx/quantize_linear/*'\n"},
        {"validate", "[SPEC|DIR ...] [OPTIONS]", "check specs without running them",
         "Loads every spec and expands every case; errors are printed as file:line:col: "
         "message. Exit 0 when all are valid.",
         validate_options, "qconform validate specs/litert/add.yaml\n"},
        {"show", "CASE [SPEC|DIR ...] [OPTIONS]",
         "print one case: its inputs, parameters and the reference's outputs", NULL, show_options,
         "qconform show 'litert/add/sh=[[];[7];[7]],p=[0.05;0;0.05;0]/0' "
         "specs/litert/add.yaml\n"},
        {"certify", "--profile NAME (--plugin PATH | --import DIR ...) [OPTIONS] [SPEC|DIR ...]",
         "run a certification profile and write a certificate",
         "Runs the whole profile (its base, and the extensions asked for) and decides: every "
         "required op ran enough cases, none failed unless waived, no waiver expired. Writes "
         "certificate.json and certificate.html with the run's reports. A filtered or sharded "
         "run is not a certification.",
         certify_options,
         "qconform certify --profile litert-int8 --extension all --plugin ./libmykernel.so\n"},
        {"export", "[SPEC|DIR ...] --out DIR [--c-arrays] [OPTIONS]",
         "write the cases of a run as files for a device with no OS",
         "Writes the cases a run with the same selection would hold (specs, --profile, "
         "--extension, --filter, --case, --seed, --shard) as DIR/manifest.qcm and one binary "
         "file per case, DIR/cases/NNNNNN.qcc: inputs, output shapes, dtypes and "
         "quantization, attributes, op and semantics, with lengths, the format version, the "
         "qconform version and a CRC-32; nothing to interpret. "
         "harness/runner/qconform_case.h defines the format.\n\n"
         "harness/runner/qconform_runner.c, one C99 file linked with the kernel library, "
         "runs them on the device and writes the outputs; qconform import judges them.",
         export_options,
         "qconform export --profile onnx-qdq --out out/onnx-qdq\n"
         "  the profile's base as case files\n"
         "qconform export specs/litert/add.yaml --out out/add --c-arrays\n"
         "  and as C arrays for a firmware image (cases.c, cases.h)\n"},
        {"feed", "DIR --device COMMAND [--out FILE] [--timeout SECONDS]",
         "serve an export's cases to the streamed runner on a device",
         "Starts COMMAND, whose stdin and stdout are the device's serial line, answers the "
         "streamed runner's requests with the export's case files one at a time, and writes "
         "what the device says to a capture for qconform import. A device that restarts "
         "goes on after the case it stopped in (import judges that case CRASH); a case with "
         "no answer in --timeout is TIMEOUT and the device is restarted.",
         feed_options,
         "qconform feed out/conv --device 'qemu-system-arm -M mps2-an385 -display none "
         "-monitor none -serial stdio -kernel fw.elf'\n"
         "  an emulated Cortex-M3; then qconform import out/conv --outputs "
         "out/conv/outputs.log\n"},
        {"import",
         "DIR [--outputs PATH] [DIR [--outputs PATH] ...] [--json FILE] [--html FILE] "
         "[--junit FILE]",
         "judge the outputs the offline runner wrote for an export",
         "Checks the export and the runner's records (versions, CRCs, every case present or "
         "started and passed by the runner, the end record, the specs unchanged since the "
         "export) before anything runs, then runs the export's selection with the kernel's "
         "outputs taken from the records: the same reference, judging and reports as "
         "qconform run, case by case. Several directories are the shards K/N of one export "
         "(each exported with --shard K/N, run on its own): their import is the whole "
         "selection's report. The report's run.import says where the outputs came from; "
         "run.plugin is what the runner recorded, as the device reported it.",
         import_run_options,
         "qconform import out/onnx-qdq --json out/onnx-qdq.json\n"
         "  the hosted runner's records in out/onnx-qdq/outputs\n"
         "qconform import out/add --outputs uart.log --json add.json\n"
         "  a serial capture of the freestanding runner\n"},
        {"report", "REPORT.json [--html FILE] [--junit FILE]",
         "render a JSON report as HTML and JUnit XML",
         "Without --html or --junit, writes both beside the JSON report (REPORT.html, "
         "REPORT.junit.xml).",
         report_options, NULL},
        {"merge", "SHARD.json ... [--json OUT]", "join the reports of run --shard K/N",
         "Checks that the reports are the shards of one run (same specs, seed, plugin and "
         "shard count, each shard once) and writes the report the whole run would have "
         "written.",
         merge_options,
         "qconform merge shard1.json shard2.json shard3.json shard4.json --json all.json\n"},
        {"diff", "BASE.json NEW.json", "regressions and improvements of one report against another",
         "Lists the cases whose verdict got worse (a regression) or better, the error "
         "statistics that moved, and lost coverage (a case BASE's kernel took that NEW "
         "refuses, lacks or leaves out: a regression unless --allow-coverage-loss names it). "
         "Exit 1 when there is a regression.",
         diff_options, NULL},
        {"diagnose", "REPORT.json [OPTIONS]", "which rule explains a report's failures",
         "Runs the report's failing cases (at most 24 per op, spread over the op's) and a "
         "sample of its passing ones again through its kernel, with its seed, specs and "
         "plugin options, and tries the catalogue of rules on them (README, Diagnosis): the "
         "reference's named roundings and the variants of reference/variants/. Says per op "
         "which rule explains every wrong element, or which two rules share them, or how much "
         "the best one explains. The specs must be unchanged since the report.",
         diagnose_options,
         "qconform diagnose reports/out/mykernel/report.json\n"
         "  why the kernel's failing cases differ\n"
         "qconform diagnose report.json --datasheet\n"
         "  which rounding the kernel follows, op by op, even where it passes\n"},
        {"shrink", "CASE [SPEC|DIR ...] --plugin PATH [OPTIONS]",
         "cut a failing case down to the smallest one that fails the same way",
         "Runs the case through the plugin, tracks its worst element outside the legal band, "
         "then cuts the case while the kernel still puts that element outside the band on "
         "the same side: to the element's window (its receptive field, its FULLY_CONNECTED "
         "row and unit, its inputs, its row), then to the fewest values (inputs set to their "
         "zero point). Every try is one kernel call in a worker: a crash or a hang costs the "
         "try. Writes the shrunk case as a standalone spec and as an export for the offline "
         "runner.",
         shrink_options,
         "qconform shrink 'litert/conv_2d/shape=[1;6;7;3],...' specs/litert/conv_2d.yaml "
         "--plugin ./libmykernel.so\n"
         "  the case's few values that still fail\n"},
        {"quant", "--dtype T (--scale S [--zero-point Z] | --mean M --std-dev D | --min A --max B)",
         "the three forms of quantization parameters, side by side",
         "Converts between (scale, zero point), (mean, std_dev) and (min, max) as each "
         "framework does, and shows what each form rounds.",
         quant_options,
         "qconform quant --dtype uint8 --mean 127.5 --std-dev 127.5\n"
         "  the (scale, zero point) of a [-1, 1] image input\n"},
        {"compare-conventions",
         "--dtype T --scale S --zero-point Z [--narrow-range] [--all] [X ...]",
         "quantize the same values as each framework does",
         "Quantizes the values X (default: values around every rounding boundary) with the "
         "same (scale, zero point) as LiteRT, ONNX, PyTorch and TensorFlow do, and shows "
         "where and why they disagree.",
         conventions_options, NULL},
        {"import-onnx", "DIR [--out OUTDIR] [--provenance TEXT]",
         "ONNX backend node tests as golden specs",
         "Reads DIR/<test>/model.onnx and its test_data_set_N of the quantization ops and "
         "writes one golden spec per test.",
         import_options, NULL},
        {"version", "", "the version, the plugin ABI and the file formats", NULL, no_options, NULL},
};

enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

const qc_help_command *qc_help_find(const char *name)
{
	for (int i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char exit_text[] =
        "0 every case conforms; 1 a case failed (or a regression, a refused certificate); 2 a "
        "usage, spec, plugin or file error; 130, 143, 129: a run stopped by SIGINT, SIGTERM, "
        "SIGHUP (its reports hold what finished).";

void qc_help_names(FILE *f)
{
	for (int i = 0; i < N_COMMANDS; i++)
		fprintf(f, "%s\n", commands[i].name);
}

void qc_help_usage(FILE *f)
{
	fprintf(f, "usage: qconform COMMAND [ARGS]\n\ncommands:\n");
	for (int i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-20s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
	        "\n'qconform COMMAND --help' tells more; 'man qconform-COMMAND' too when "
	        "installed.\nexit status: %s\n",
	        exit_text);
}

/* text wrapped to width columns, each line after indent spaces; the first line goes on from
 * column col (col < indent: it is indented too) */
static void wrap(FILE *f, const char *text, int col, int indent, int width)
{
	const char *p = text;
	while (*p) {
		if (*p == '\n') { /* a paragraph break */
			fputc('\n', f);
			p++;
			continue;
		}
		if (col < indent)
			fprintf(f, "%*s", indent - col, "");
		col = indent;
		int first = 1;
		while (*p && *p != '\n') {
			size_t w = strcspn(p, " \n");
			if (!first && col + 1 + (int)w > width)
				break;
			fprintf(f, "%s%.*s", first ? "" : " ", (int)w, p);
			col += (int)w + !first;
			first = 0;
			p += w;
			while (*p == ' ')
				p++;
		}
		fputc('\n', f);
		col = 0;
		if (*p == '\n')
			p++;
	}
}

void qc_help_print(FILE *f, const qc_help_command *c)
{
	fprintf(f, "usage: qconform %s%s%s\n%s\n", c->name, *c->synopsis ? " " : "", c->synopsis,
	        c->summary);
	if (c->text) {
		fputc('\n', f);
		wrap(f, c->text, 0, 0, 79);
	}
	if (c->options && c->options[0].flag) {
		fprintf(f, "\noptions:\n");
		for (const qc_help_option *o = c->options; o->flag; o++) {
			char head[64];
			snprintf(head, sizeof head, "%s%s%s", o->flag, o->arg ? " " : "",
			         o->arg ? o->arg : "");
			if (strlen(head) <= 24) { /* the text beside the flag */
				fprintf(f, "  %-24s", head);
				wrap(f, o->text, 26, 26, 79);
			} else {
				fprintf(f, "  %s\n", head);
				wrap(f, o->text, 0, 26, 79);
			}
		}
	}
	if (c->examples) {
		fprintf(f, "\nexamples:\n");
		for (const char *p = c->examples; *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(f, "  %s%.*s\n", *p == ' ' ? "" : "$ ", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	fprintf(f, "\nexit status: %s\n", exit_text);
}

/* ---- man pages ---- */

/* text as roff: backslashes and a leading dot or quote escaped, '-' as \- in flags */
static void roff(FILE *f, const char *s, int dashes)
{
	int bol = 1;
	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-' && dashes)
			fputs("\\-", f);
		else
			fputc(*s, f);
		bol = *s == '\n';
	}
}

static void man_paragraphs(FILE *f, const char *text)
{
	for (const char *p = text; *p;) {
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *para = strndup(p, n);
		if (!para)
			return;
		fputs(".PP\n", f);
		roff(f, para, 0);
		fputc('\n', f);
		free(para);
		p += n;
		while (*p == '\n')
			p++;
	}
}

void qc_help_man(FILE *f, const qc_help_command *c)
{
	char title[64];
	snprintf(title, sizeof title, "QCONFORM%s%s", c ? "-" : "", c ? c->name : "");
	for (char *t = title; *t; t++)
		if (*t >= 'a' && *t <= 'z')
			*t = (char)(*t - 'a' + 'A');
	fprintf(f, ".TH %s 1 \"\" \"qconform %s\" \"qconform manual\"\n.SH NAME\n", title,
	        QC_VERSION);
	if (!c) {
		fputs("qconform \\- conformance suite and tolerance harness for quantized kernels\n"
		      ".SH SYNOPSIS\n.B qconform\n.I COMMAND\n[\\fIARGS\\fR]\n.SH DESCRIPTION\n",
		      f);
		man_paragraphs(f,
		               "qconform expands YAML specs of quantized operators into cases, "
		               "runs each through its reference implementation and through a "
		               "kernel plugin, and reports per case whether the kernel conforms "
		               "to the framework's semantics (LiteRT, ONNX, PyTorch, TensorFlow) "
		               "within the spec's tolerance.");
		fputs(".SH COMMANDS\n", f);
		for (int i = 0; i < N_COMMANDS; i++) {
			fprintf(f, ".TP\n.B %s\n", commands[i].name);
			roff(f, commands[i].summary, 0);
			fprintf(f, " (\\fBqconform\\-%s\\fR(1))\n", commands[i].name);
		}
	} else {
		fprintf(f, "qconform\\-%s \\- ", c->name);
		roff(f, c->summary, 0);
		fprintf(f, "\n.SH SYNOPSIS\n.B qconform %s\n", c->name);
		roff(f, c->synopsis, 1);
		fputs("\n.SH DESCRIPTION\n", f);
		man_paragraphs(f, c->text ? c->text : c->summary);
		if (c->options && c->options[0].flag) {
			fputs(".SH OPTIONS\n", f);
			for (const qc_help_option *o = c->options; o->flag; o++) {
				fputs(".TP\n.B ", f);
				roff(f, o->flag, 1);
				if (o->arg) {
					fputs(" \\fI", f);
					roff(f, o->arg, 0);
					fputs("\\fR", f);
				}
				fputc('\n', f);
				roff(f, o->text, 0);
				fputc('\n', f);
			}
		}
		if (c->examples) {
			fputs(".SH EXAMPLES\n", f);
			for (const char *p = c->examples; *p;) {
				size_t n = strcspn(p, "\n");
				char *line = strndup(p, n);
				if (!line)
					return;
				if (*line == ' ') {
					roff(f, line + 2, 0);
					fputc('\n', f);
				} else {
					fputs(".PP\n.nf\n", f);
					roff(f, line, 1);
					fputs("\n.fi\n", f);
				}
				free(line);
				p += n + (p[n] == '\n');
			}
		}
	}
	fputs(".SH EXIT STATUS\n", f);
	roff(f, exit_text, 0);
	fputs("\n.SH ENVIRONMENT\n.TP\n.B NO_COLOR\nWhen set and not empty, no colours on a "
	      "terminal.\n.TP\n.B QCONFORM_TRACE\n1: print each step of loading a plugin.\n"
	      ".SH FILES\nThe installed specs and profiles: \\fIPREFIX/share/qconform/specs\\fR; "
	      "the plugin header: \\fIPREFIX/include/qconform/plugin.h\\fR "
	      "(\\fBpkg\\-config \\-\\-cflags qconform\\-plugin\\fR).\n.SH SEE ALSO\n",
	      f);
	if (c)
		fputs("\\fBqconform\\fR(1)\n", f);
	else
		for (int i = 0; i < N_COMMANDS; i++)
			fprintf(f, "\\fBqconform\\-%s\\fR(1)%s\n", commands[i].name,
			        i + 1 < N_COMMANDS ? "," : "");
}

/* ---- did you mean ---- */

/* Damerau-Levenshtein distance (adjacent transpositions), for short words */
static int distance(const char *a, const char *b)
{
	enum { M = 40 };
	size_t n = strlen(a), m = strlen(b);
	if (n >= M || m >= M)
		return 1000;
	int d[M][M];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

/* the nearest of the candidates: within a third of the word's length (at least 2), or the
 * only candidate the word is a prefix of */
static const char *nearest(const char *word, const char *const *cand, int n)
{
	const char *best = NULL, *prefixed = NULL;
	int best_d = 1000, n_prefixed = 0;
	size_t len = strlen(word);
	for (int i = 0; i < n; i++) {
		int d = distance(word, cand[i]);
		if (d < best_d) {
			best_d = d;
			best = cand[i];
		}
		if (len >= 3 && !strncmp(cand[i], word, len)) {
			prefixed = cand[i];
			n_prefixed++;
		}
	}
	int limit = (int)len / 3 < 2 ? 2 : (int)len / 3;
	if (best && best_d <= limit && best_d > 0)
		return best;
	return n_prefixed == 1 ? prefixed : NULL;
}

const char *qc_help_nearest_command(const char *word)
{
	const char *names[N_COMMANDS];
	for (int i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].name;
	return nearest(word, names, N_COMMANDS);
}

const char *qc_help_nearest_option(const char *cmd, const char *word)
{
	const char *flags[128];
	int n = 0;
	const qc_help_command *only = cmd ? qc_help_find(cmd) : NULL;
	for (int i = 0; i < N_COMMANDS; i++) {
		if (only && &commands[i] != only)
			continue;
		for (const qc_help_option *o = commands[i].options; o && o->flag && n < 126; o++)
			flags[n++] = o->flag;
	}
	flags[n++] = "--help";
	char bare[64];
	snprintf(bare, sizeof bare, "%s", word);
	char *eq = strchr(bare, '=');
	if (eq)
		*eq = 0;
	return nearest(bare, flags, n);
}

int qc_help_unknown_option(const char *cmd, const char *arg)
{
	const char *near = qc_help_nearest_option(cmd, arg);
	fprintf(stderr, "qconform %s: unknown option %s", cmd, arg);
	if (near)
		fprintf(stderr, " (did you mean %s?)", near);
	fprintf(stderr, "; qconform %s --help lists them\n", cmd);
	return 2;
}

/* ---- reading a command's options ---- */

/* 1 if a is a number ("-3", "-0.5", "-.5", "-inf"): a word, not an option. */
static int opt_is_number(const char *a)
{
	char *end;
	strtod(a, &end);
	return end != a && !*end;
}

int qc_opt_next(qc_opt_reader *r, const char **flag, const char **value)
{
	*flag = *value = NULL;
	if (r->i >= r->argc)
		return QC_OPT_END;
	const char *a = r->argv[r->i++];
	if (!r->words && !strcmp(a, "--")) { /* the rest are words */
		r->words = 1;
		if (r->i >= r->argc)
			return QC_OPT_END;
		a = r->argv[r->i++];
	}
	/* "-" is a word: standard input, where a command takes it */
	if (r->words || a[0] != '-' || !a[1] || opt_is_number(a)) {
		*value = a;
		return QC_OPT_WORD;
	}
	/* the name: up to an '=', with '_' read as '-' (--zero_point, as TF writes it) */
	char name[64];
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	if (len >= sizeof name) {
		qc_help_unknown_option(r->cmd, a);
		return QC_OPT_BAD;
	}
	for (size_t k = 0; k < len; k++)
		name[k] = k > 1 && a[k] == '_' ? '-' : a[k];
	name[len] = 0;
	const qc_help_command *c = qc_help_find(r->cmd);
	const qc_help_option *o = c ? c->options : NULL;
	while (o && o->flag && strcmp(o->flag, name) != 0)
		o++;
	if (!o || !o->flag) {
		qc_help_unknown_option(r->cmd, a);
		return QC_OPT_BAD;
	}
	*flag = o->flag;
	if (!o->arg) {
		if (eq) {
			fprintf(stderr, "qconform %s: %s takes no value\n", r->cmd, o->flag);
			return QC_OPT_BAD;
		}
	} else if (eq) {
		*value = eq + 1;
	} else if (r->i < r->argc) {
		*value = r->argv[r->i++];
	} else {
		fprintf(stderr, "qconform %s: missing value after %s (%s)\n", r->cmd, a, o->arg);
		return QC_OPT_BAD;
	}
	return QC_OPT_FLAG;
}

int qc_opt_unread(const char *cmd, const char *flag)
{
	fprintf(stderr, "qconform %s: %s is in the help but %s does not read it (a bug)\n", cmd,
	        flag, cmd);
	return 2;
}
