/* sandbox: see sandbox.h. Runs in the worker before any plugin code. */
#include "sandbox.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* In the new mount namespace: a /proc of the new PID namespace, the allowed paths bound onto
 * themselves, every other mount read-only. Returns how many mounts stayed writable against
 * the wish (0 is the aim). */
static int setup_mounts(const char *const *allow, int n_allow)
{
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	for (int i = 0; i < n_allow; i++)
		mount(allow[i], allow[i], NULL, MS_BIND | MS_REC, NULL);
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return 1;
	int failed = 0;
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		/* id parent major:minor root mountpoint options ... */
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		unescape(mp);
		int allowed = !strcmp(mp, "/proc");
		for (int i = 0; i < n_allow && !allowed; i++)
			allowed = !strcmp(mp, allow[i]);
		if (allowed)
			continue;
		unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY;
		if (strstr(line, " nosuid") || strstr(line, ",nosuid"))
			flags |= MS_NOSUID;
		if (strstr(line, " nodev") || strstr(line, ",nodev"))
			flags |= MS_NODEV;
		if (strstr(line, " noexec") || strstr(line, ",noexec"))
			flags |= MS_NOEXEC;
		if (mount(NULL, mp, NULL, flags, NULL) != 0)
			failed++;
	}
	fclose(f);
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
	/* no network: sockets of AF_UNIX only */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, deny, SCMP_SYS(socket), 1,
		                      SCMP_A0_32(SCMP_CMP_NE, (scmp_datum_t)AF_UNIX));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		snprintf(why, why_size, "seccomp: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

void qc_sandbox_enter(const int *keep_fds, int n_keep, const char *const *allow, int n_allow,
                      char *what, size_t what_size)
{
	char ns[160] = "namespaces";
	if (unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS) == 0) {
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
			int rw = setup_mounts(allow, n_allow);
			if (rw)
				snprintf(ns, sizeof ns, "namespaces (%d mount%s not read-only)", rw,
				         rw == 1 ? "" : "s");
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
		} else {
			snprintf(ns, sizeof ns, "no namespaces (fork: %s)", strerror(errno));
		}
	} else {
		snprintf(ns, sizeof ns, "no namespaces (unshare: %s)", strerror(errno));
	}
	/* the worker: no privileges, then the filter */
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	capng_clear(CAPNG_SELECT_BOTH);
	int caps = capng_apply(CAPNG_SELECT_BOTH) == 0;
	char sc[128] = "seccomp";
	install_seccomp(sc, sizeof sc);
	snprintf(what, what_size, "%s, %s, %s", ns, caps ? "no capabilities" : "capabilities kept",
	         sc);
}
