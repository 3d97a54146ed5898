/*
 * The commands: one file each in harness/src/cmd/, each a driver over the stages. main.c
 * dispatches to them; help.c describes them (--help, the man pages).
 */
#ifndef QC_COMMANDS_H
#define QC_COMMANDS_H

#include "gate/certify.h"
#include "run/run.h"

/* `qconform quant ...` (argv[0] is "quant"). Returns the exit status. */
int qc_cmd_quant(int argc, char **argv);

/* `qconform compare-conventions ...` (argv[0] is the command). Exit status. */
int qc_cmd_compare_conventions(int argc, char **argv);

/* The command: argv[0] is "import-onnx". Returns the exit status. */
int qc_cmd_import_onnx(int argc, char **argv);

/* `qconform report RESULT.json [--html FILE] [--junit FILE]`; argv[0] is "report". */
int qc_cmd_report(int argc, char **argv);

/* qconform diff BASE.json NEW.json [--allow-coverage-loss GLOB ...]: exit 1 if there is a
 * regression, 2 on a usage error. */
int qc_cmd_diff(int argc, char **argv);

/* qconform merge A.json B.json ... [--json OUT]: exit 0 the merged run conforms, 1 it does
 * not, 2 the reports cannot be merged (one line on stderr). */
int qc_cmd_merge(int argc, char **argv);

/* `qconform certify`: o as for run (main.c parses it), out_dir from --out or NULL; with
 * imports, the kernel's outputs are the runner's records of the export (which must select the
 * whole profile with the declared extensions), judged as `qconform import` does. */
int qc_cmd_certify(const qc_run_opts *o, const char *out_dir, const qc_certify_imports *imports);

/* qconform import DIR ...: argv[0] is "import"; self is the qconform that runs, command the
 * command line. The run's exit status, or 2 (said why on one line). */
int qc_cmd_import(int argc, char **argv, const char *self, const char *command);

/* qconform export: the cases o selects into out_dir; with c_arrays also cases.c and cases.h.
 * 0, or 2 (said why on one line). */
int qc_cmd_export(const qc_run_opts *o, const char *out_dir, int c_arrays);

/* qconform feed DIR --device CMD ...: argv[0] is "feed" (feed.c). The exit status: 0 when every
 * case was answered or judged, 2 (said why on one line). */
int qc_cmd_feed(int argc, char **argv);

/* qconform shrink CASE --plugin P (cmd/shrink.c): the failing case cut down, into
 * out_dir (NULL: reports/out/shrunk); at most max_calls kernel calls (0: 256). */
int qc_cmd_shrink(const qc_run_opts *o, const char *name, const char *out_dir, int max_calls);

/* qconform diagnose REPORT.json [OPTIONS] (cmd/diagnose.c): argv[0] is "diagnose"; self is the
 * qconform that runs. */
int qc_cmd_diagnose(int argc, char **argv, const char *self);

/*
 * Runs the specs. Exit status: 0 conforms, 1 does not, 2 usage, spec, plugin or journal error;
 * 128 + the signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP) when a signal stopped the run: the
 * reports then hold the cases judged before it and say "interrupted", and the journal stays
 * for --resume. --max-failures N stops the run after N failing cases (exit 1): the reports hold
 * the cases judged by then and say "interrupted" (max_failures N); no journal is kept.
 */
int qc_cmd_run(const qc_run_opts *o);
int qc_cmd_list(const qc_run_opts *o);
int qc_cmd_validate(const qc_run_opts *o);
int qc_cmd_show(const qc_run_opts *o, const char *case_name);

#endif
