/* sandbox: see sandbox.h. Runs in the worker before any plugin code. */
#include "run/sandbox.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Tasks (processes and threads) the sandbox may hold at once: a fork bomb stops there. */
#define QC_SANDBOX_MAX_TASKS 1024

/* The process the harness started, outside the namespaces: waits for init to report how
 * the worker ended, and ends the same way. */
static _Noreturn void outer_wait(pid_t init, int status_fd)
{
	int st = 0, got = 0;
	for (;;) {
		ssize_t n = read(status_fd, &st, sizeof st);
		if (n == (ssize_t)sizeof st) {
			got = 1;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	int ist;
	while (waitpid(init, &ist, 0) < 0 && errno == EINTR)
		;
	if (!got)
		st = ist; /* init itself was killed (a timeout, the harness's kill) */
	qc_exit_like(st);
}

void qc_exit_like(int st)
{
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		struct rlimit nocore = {0, 0};
		setrlimit(RLIMIT_CORE, &nocore);
		raise(sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* PID 1 of the namespace: reaps every process, reports the worker's end, then exits (the
 * kernel then kills whatever the plugin left running). */
static _Noreturn void init_loop(pid_t worker, int status_fd)
{
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p == worker) {
			ssize_t w = write(status_fd, &st, sizeof st);
			(void)w;
			_exit(0);
		}
		if (p < 0 && errno == ECHILD)
			_exit(0);
	}
}

/* A mount point from /proc/self/mountinfo, octal escapes (\040) decoded. */
static void unescape(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
}

/* Is the comma-separated option o in opts? */
static int has_opt(const char *opts, const char *o)
{
	size_t n = strlen(o);
	for (const char *p = opts; (p = strstr(p, o)) != NULL; p += n)
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

/* In the new mount namespace: every mount read-only but the allowed paths (bound onto
 * themselves), then a /proc of the new PID namespace, read-only too once the task limit is
 * written into it (/proc/sys/kernel/pid_max is per PID namespace since Linux 6.14). Returns
 * how many mounts stayed writable against the wish (0 is the aim); *tasks is set when the
 * task limit is in force. */
static int setup_mounts(const char *const *allow, int n_allow, int *tasks)
{
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	for (int i = 0; i < n_allow; i++)
		mount(allow[i], allow[i], NULL, MS_BIND | MS_REC, NULL);
	int failed = 0;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		failed++;
	char line[4096];
	while (f && fgets(line, sizeof line, f)) {
		/* id parent major:minor root mountpoint options ... */
		char mp[4096], opts[1024];
		if (sscanf(line, "%*s %*s %*s %*s %4095s %1023s", mp, opts) != 2)
			continue;
		unescape(mp);
		int allowed = 0;
		for (int i = 0; i < n_allow && !allowed; i++)
			allowed = !strcmp(mp, allow[i]);
		if (allowed)
			continue;
		/* a user namespace locks these flags: a remount must keep them */
		unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
		if (has_opt(opts, "nosuid"))
			flags |= MS_NOSUID;
		if (has_opt(opts, "nodev"))
			flags |= MS_NODEV;
		if (has_opt(opts, "noexec"))
			flags |= MS_NOEXEC;
		if (has_opt(opts, "noatime"))
			flags |= MS_NOATIME;
		if (has_opt(opts, "nodiratime"))
			flags |= MS_NODIRATIME;
		if (has_opt(opts, "relatime"))
			flags |= MS_RELATIME;
		if (has_opt(opts, "strictatime"))
			flags |= MS_STRICTATIME;
		/* a mount the worker's user cannot reach (EACCES) it cannot write either */
		if (mount(NULL, mp, NULL, flags, NULL) != 0 && errno != EACCES && errno != ENOENT)
			failed++;
	}
	if (f)
		fclose(f);
	const unsigned long pf = MS_NOSUID | MS_NODEV | MS_NOEXEC;
	if (mount("proc", "/proc", "proc", pf, NULL) != 0)
		return failed + 1;
	int fd = open("/proc/sys/kernel/pid_max", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		char n[16];
		int len = snprintf(n, sizeof n, "%d", QC_SANDBOX_MAX_TASKS);
		*tasks = write(fd, n, (size_t)len) == len;
		close(fd);
	}
	/* read-only: /proc/sys (core_pattern), sysrq-trigger and the like */
	if (mount(NULL, "/proc", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | pf, NULL) != 0)
		failed++;
	return failed;
}

/* EPERM for what a kernel has no business doing; 0, or -1 with the reason in why. */
static int install_seccomp(char *why, size_t why_size)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(why, why_size, "seccomp_init failed");
		return -1;
	}
	const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
	const scmp_datum_t self = (scmp_datum_t)getpid();
	static const char *const denied[] = {
	        "ptrace",
	        "process_vm_readv",
	        "process_vm_writev",
	        "execve",
	        "execveat",
	        "mount",
	        "umount2",
	        "unshare",
	        "setns",
	        "pivot_root",
	        "chroot",
	        "reboot",
	        "kexec_load",
	        "kexec_file_load",
	        "init_module",
	        "finit_module",
	        "delete_module",
	        "swapon",
	        "swapoff",
	        "settimeofday",
	        "clock_settime",
	        "clock_adjtime",
	        "adjtimex",
	        "sethostname",
	        "setdomainname",
	        "acct",
	        "tkill",
	        "pidfd_open",
	        "pidfd_send_signal",
	        "pidfd_getfd",
	        "open_by_handle_at",
	        "bpf",
	        "keyctl",
	        "add_key",
	        "request_key",
	        "iopl",
	        "ioperm",
	        "quotactl",
	        /* io_uring does what the calls above refuse (sockets, opens) without them */
	        "io_uring_setup",
	        "io_uring_enter",
	        "io_uring_register",
	        /* memory --worker-memory (RLIMIT_AS) does not count once unmapped */
	        "memfd_create",
	        "memfd_secret",
	        "shmget",
	        /* sockets: none (path-based AF_UNIX ones reach the host's services) */
	        "socket",
	        "userfaultfd",
	        "perf_event_open",
	        "fanotify_init",
	};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof denied / sizeof denied[0]; i++) {
		int nr = seccomp_syscall_resolve_name(denied[i]);
		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(ctx, deny, nr, 0);
	}
	/* signals: only to itself (raise, abort and pthread_kill are tgkill to itself) */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(kill), 1, SCMP_A0_32(SCMP_CMP_NE, self));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(tgkill), 1,
		                      SCMP_A0_32(SCMP_CMP_NE, self));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(rt_sigqueueinfo), 1,
		                      SCMP_A0_32(SCMP_CMP_NE, self));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(rt_tgsigqueueinfo), 1,
		                      SCMP_A0_32(SCMP_CMP_NE, self));
	/* a connected pair only: a datagram socket sends to any path (sendto, sendmsg) */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(socketpair), 1,
		                      SCMP_A0_32(SCMP_CMP_NE, (scmp_datum_t)AF_UNIX));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(socketpair), 1,
		                      SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM));
	/* signals by other routes: an fd's owner (SIGIO, or any signal with F_SETSIG) */
	static const int fcntl_cmds[] = {F_SETOWN, F_SETOWN_EX, F_SETSIG};
	for (size_t i = 0; rc == 0 && i < sizeof fcntl_cmds / sizeof fcntl_cmds[0]; i++)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(fcntl), 1,
		                      SCMP_A1_32(SCMP_CMP_EQ, (scmp_datum_t)fcntl_cmds[i]));
	static const unsigned long ioctl_cmds[] = {FIOSETOWN, SIOCSPGRP};
	for (size_t i = 0; rc == 0 && i < sizeof ioctl_cmds / sizeof ioctl_cmds[0]; i++)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(ioctl), 1,
		                      SCMP_A1_32(SCMP_CMP_EQ, (scmp_datum_t)ioctl_cmds[i]));
	/* clone: no new namespace (a new user namespace has every capability in it), no
	 * sibling; clone3's flags are out of the filter's sight: ENOSYS makes libc use clone */
	static const unsigned long clone_flags[] = {CLONE_NEWNS,     CLONE_NEWUTS, CLONE_NEWIPC,
	                                            CLONE_NEWUSER,   CLONE_NEWPID, CLONE_NEWNET,
	                                            CLONE_NEWCGROUP, CLONE_PARENT};
	for (size_t i = 0; rc == 0 && i < sizeof clone_flags / sizeof clone_flags[0]; i++)
		rc = seccomp_rule_add(
		        ctx, deny, SCMP_SYS(clone), 1,
		        SCMP_A0_64(SCMP_CMP_MASKED_EQ, clone_flags[i], clone_flags[i]));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		snprintf(why, why_size, "seccomp: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

/* In a new user namespace: the worker's own uid and gid map onto themselves (the plugin sees
 * the same owners), and nothing else. */
static int map_ids(uid_t uid, gid_t gid)
{
	char buf[64];
	const char *file[] = {"/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map"};
	for (int i = 0; i < 3; i++) {
		int len = i == 0   ? snprintf(buf, sizeof buf, "deny")
		          : i == 1 ? snprintf(buf, sizeof buf, "%lu %lu 1", (unsigned long)uid,
		                              (unsigned long)uid)
		                   : snprintf(buf, sizeof buf, "%lu %lu 1", (unsigned long)gid,
		                              (unsigned long)gid);
		int fd = open(file[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		int ok = write(fd, buf, (size_t)len) == len;
		close(fd);
		if (!ok)
			return -1;
	}
	return 0;
}

int qc_sandbox_enter(const int *keep_fds, int n_keep, const char *const *allow, int n_allow,
                     char *what, size_t what_size)
{
	const int nsflags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS;
	char ns[160] = "namespaces";
	int level = QC_SANDBOX_REDUCED, userns = 0, tasks = 0;
	uid_t uid = getuid();
	gid_t gid = getgid();
	int rc = unshare(nsflags);
	if (rc != 0) {
		/* without the privilege: in a user namespace of its own (CLONE_NEWUSER) */
		int e = errno;
		rc = unshare(CLONE_NEWUSER | nsflags);
		if (rc == 0 && map_ids(uid, gid) != 0) {
			snprintf(ns, sizeof ns, "no namespaces (uid_map: %s)", strerror(errno));
			rc = 1; /* in a user namespace with no ids: go on without namespaces */
		} else if (rc == 0) {
			userns = 1;
			snprintf(ns, sizeof ns, "namespaces (user)");
		} else {
			snprintf(ns, sizeof ns, "no namespaces (unshare: %s; user namespace: %s)",
			         strerror(e), strerror(errno));
		}
	}
	if (rc == 0) {
		int sp[2];
		pid_t init = -1;
		if (pipe2(sp, O_CLOEXEC) == 0)
			init = fork();
		if (init > 0) {
			close(sp[1]);
			for (int i = 0; i < n_keep; i++)
				close(keep_fds[i]);
			outer_wait(init, sp[0]);
		}
		if (init == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(sp[0]);
			int rw = setup_mounts(allow, n_allow, &tasks);
			size_t l = strlen(ns);
			if (rw)
				snprintf(ns + l, sizeof ns - l, " (%d mount%s not read-only)", rw,
				         rw == 1 ? "" : "s");
			/* init keeps its capabilities: the worker may not look into it */
			prctl(PR_SET_DUMPABLE, 0);
			pid_t w = fork();
			if (w > 0) {
				for (int i = 0; i < n_keep; i++)
					close(keep_fds[i]);
				init_loop(w, sp[1]);
			}
			if (w < 0)
				_exit(3);
			close(sp[1]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != 1) /* init is gone already */
				_exit(0);
			prctl(PR_SET_DUMPABLE, 1);
			level = QC_SANDBOX_NAMESPACES;
		} else {
			snprintf(ns, sizeof ns, "no namespaces (fork: %s)", strerror(errno));
		}
	}
	/* a fork bomb: the PID namespace's pid_max, else RLIMIT_NPROC, which counts the tasks of
	 * the user in its user namespace (not those of root, whom it does not limit) */
	if (!tasks && (userns || level == QC_SANDBOX_NAMESPACES)) {
		struct rlimit rl = {QC_SANDBOX_MAX_TASKS, QC_SANDBOX_MAX_TASKS};
		tasks = uid != 0 && setrlimit(RLIMIT_NPROC, &rl) == 0;
	}
	/* the worker: no privileges, then the filter */
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	capng_clear(CAPNG_SELECT_BOTH);
	int caps = capng_apply(CAPNG_SELECT_BOTH) == 0;
	char sc[128] = "seccomp";
	install_seccomp(sc, sizeof sc);
	char lim[48] = "no task limit";
	if (tasks)
		snprintf(lim, sizeof lim, "at most %d tasks", QC_SANDBOX_MAX_TASKS);
	snprintf(what, what_size, "%s, %s, %s, %s", ns,
	         caps ? "no capabilities" : "capabilities kept", sc, lim);
	return level;
}
