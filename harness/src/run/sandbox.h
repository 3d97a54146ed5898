/*
 * sandbox: what the worker does to itself before it loads a plugin (qconform-worker
 * --sandbox). Linux only; each part is taken where the kernel allows it, and the worker's
 * load report says which parts are on.
 *
 *   namespaces  new PID, network, mount, IPC and UTS namespaces: as root directly, as any other
 *               user inside a user namespace of the worker's own (its uid and gid mapped onto
 *               themselves). The worker runs as PID 2 under a small init (PID 1, not
 *               dumpable); when the worker dies, init exits and the kernel kills everything
 *               the plugin forked. Outside, the process the harness started waits and dies
 *               the way the worker died. No network (a loopback that is down), a private
 *               /proc that shows only the sandbox, read-only, and every other mount read-only
 *               except the paths given with --sandbox-allow. At most QC_SANDBOX_MAX_TASKS
 *               tasks (pid_max of the PID namespace, else RLIMIT_NPROC in a user namespace).
 *   privileges  no_new_privs; every capability dropped.
 *   seccomp     (libseccomp) refused with EPERM: signals to other processes (kill, tgkill,
 *               tkill, rt_sigqueueinfo, pidfd_*, an fd's owner: F_SETOWN, F_SETOWN_EX,
 *               F_SETSIG, FIOSETOWN, SIOCSPGRP), ptrace, process_vm_readv/writev,
 *               execve/execveat, socket() (socketpair of AF_UNIX streams only), io_uring,
 *               memfd_create, memfd_secret, shmget, clone with a namespace or CLONE_PARENT
 *               (clone3: ENOSYS), mount, umount, unshare, setns, pivot_root, chroot,
 *               userfaultfd, perf_event_open, fanotify_init, and the administrative calls
 *               (reboot, kexec, modules, swap, clock).
 *
 * What it does not stop: reading any file the worker's user may read (read-only is not
 * invisible), using CPU and memory up to the limits (--timeout, --worker-memory), writes to
 * the paths allowed, anything the plugin does through a device node, and kernel exploits.
 * Without any namespace (QC_SANDBOX_REDUCED: a kernel that refuses user namespaces) only the
 * privileges and seccomp parts apply.
 */
#ifndef QC_SANDBOX_H
#define QC_SANDBOX_H

#include <stddef.h>

/* How much of the sandbox is in force (qc_load_report.sandbox_level) */
#define QC_SANDBOX_OFF        0 /* not asked for (--no-sandbox), or an older worker */
#define QC_SANDBOX_REDUCED    1 /* no namespace could be had: privileges and seccomp only */
#define QC_SANDBOX_NAMESPACES 2 /* the namespaces too (as root, or in a user namespace) */

/*
 * Enters the sandbox; returns in the worker process (maybe a different process than the
 * caller: the caller then waits for it and never returns). keep_fds[0..n_keep) are the fds
 * the worker needs; allow[0..n_allow) the paths that stay writable. what gets a short
 * description of the parts in force ("namespaces, seccomp" or why one is missing). Returns
 * QC_SANDBOX_NAMESPACES, or QC_SANDBOX_REDUCED when no namespace could be had.
 */
int qc_sandbox_enter(const int *keep_fds, int n_keep, const char *const *allow, int n_allow,
                     char *what, size_t what_size);

/* Ends this process as a child that ended with wait status st did: by the same signal (no
 * core file), else with its exit status. */
_Noreturn void qc_exit_like(int st);

#endif
