#include "base/platform.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#endif

/* The CPU families /proc/cpuinfo can describe, by the lines only that family's kernel writes. */
enum { FAM_X86 = 1, FAM_ARM = 2 };

#if defined(__x86_64__) || defined(__i386__)
#define OWN_FAMILY FAM_X86
#define OWN_NAME   "x86"
#elif defined(__aarch64__) || defined(__arm__)
#define OWN_FAMILY FAM_ARM
#define OWN_NAME   "Arm"
#else
#define OWN_FAMILY 0
#define OWN_NAME   "this"
#endif

/* The x86 flags a quantized kernel dispatches on, kept from /proc/cpuinfo's "flags". */
static const char *const x86_flags[] = {
        "sse4_1",      "sse4_2",   "avx",      "avx2",        "fma",
        "f16c",        "avx512f",  "avx512bw", "avx512vl",    "avx512_vnni",
        "avx512_bf16", "avx_vnni", "amx_int8", "avx512_fp16", "hypervisor",
};

/* Appends " word" to s (size n) while it fits. */
static void add_word(char *s, size_t n, const char *word)
{
	size_t l = strlen(s);
	if (l + 1 + strlen(word) < n)
		snprintf(s + l, n - l, "%s%s", l ? " " : "", word);
}

/* The value of a "key\t: value" line, without its newline. */
static const char *value_of(char *line)
{
	char *c = strchr(line, ':');
	if (!c)
		return "";
	c++;
	while (*c == ' ' || *c == '\t')
		c++;
	c[strcspn(c, "\n")] = '\0';
	return c;
}

/* Reads the first CPU's description from /proc/cpuinfo (at most 256 lines): which family
 * wrote it, its name, and the x86 flags of interest. */
static int read_cpuinfo(char *name, size_t name_n, char *flags, size_t flags_n)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return 0;
	int fam = 0;
	char line[4096], impl[32] = "", part[32] = "";
	for (int i = 0; i < 256 && fgets(line, sizeof line, f); i++) {
		if (line[0] == '\n' && fam)
			break; /* the first processor's block */
		if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "flags", 5))
			fam |= FAM_X86;
		if (!strncmp(line, "CPU implementer", 15) || !strncmp(line, "Features", 8))
			fam |= FAM_ARM;
		if (!strncmp(line, "model name", 10) && !name[0])
			snprintf(name, name_n, "%s", value_of(line));
		else if (!strncmp(line, "CPU implementer", 15))
			snprintf(impl, sizeof impl, "%.31s", value_of(line));
		else if (!strncmp(line, "CPU part", 8))
			snprintf(part, sizeof part, "%.31s", value_of(line));
		else if (!strncmp(line, "flags", 5)) {
			/* whole words of the line that are in the list */
			const char *v = value_of(line);
			for (size_t k = 0; k < sizeof x86_flags / sizeof x86_flags[0]; k++) {
				size_t wl = strlen(x86_flags[k]);
				for (const char *p = strstr(v, x86_flags[k]); p;
				     p = strstr(p + 1, x86_flags[k]))
					if ((p == v || p[-1] == ' ') && (p[wl] == ' ' || !p[wl])) {
						add_word(flags, flags_n, x86_flags[k]);
						break;
					}
			}
		}
	}
	fclose(f);
	if (!name[0] && impl[0])
		snprintf(name, name_n, "implementer %s part %s", impl, part[0] ? part : "?");
	return fam;
}

/* The Arm features this process may use, from the auxiliary vector (right under an emulator
 * too: it is the emulated CPU's). */
static void arm_hwcaps(char *s, size_t n)
{
#if defined(__aarch64__) && defined(__linux__)
	static const struct {
		int word; /* 1: AT_HWCAP, 2: AT_HWCAP2 */
		unsigned long bit;
		const char *name;
	} caps[] = {
	        {1, HWCAP_ASIMD, "asimd"},       {1, HWCAP_FPHP, "fphp"},
	        {1, HWCAP_ASIMDHP, "asimdhp"},   {1, HWCAP_ASIMDDP, "asimddp"},
	        {1, HWCAP_ASIMDFHM, "asimdfhm"}, {1, HWCAP_SVE, "sve"},
#ifdef HWCAP2_SVE2
	        {2, HWCAP2_SVE2, "sve2"},
#endif
#ifdef HWCAP2_I8MM
	        {2, HWCAP2_I8MM, "i8mm"},        {2, HWCAP2_SVEI8MM, "svei8mm"},
#endif
#ifdef HWCAP2_BF16
	        {2, HWCAP2_BF16, "bf16"},
#endif
#ifdef HWCAP2_SME
	        {2, HWCAP2_SME, "sme"},
#endif
	};
	unsigned long w1 = getauxval(AT_HWCAP), w2 = getauxval(AT_HWCAP2);
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
		if ((caps[i].word == 1 ? w1 : w2) & caps[i].bit)
			add_word(s, n, caps[i].name);
#else
	(void)s;
	(void)n;
#endif
}

void qc_platform_probe(qc_platform *p)
{
	memset(p, 0, sizeof *p);
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(p->machine, sizeof p->machine, "%s", u.machine);
		snprintf(p->system, sizeof p->system, "%s %s", u.sysname, u.release);
	}
	char name[128] = "", feat[200] = "";
	int fam = read_cpuinfo(name, sizeof name, feat, sizeof feat);
	if (fam && OWN_FAMILY && !(fam & OWN_FAMILY)) {
		/* qemu-user passes the host's /proc/cpuinfo (and its uname -r) to the guest */
		snprintf(p->emulation, sizeof p->emulation,
		         "emulated: the kernel describes %s CPU (/proc/cpuinfo) to this %s process "
		         "(a user-mode emulator such as qemu-user)",
		         fam & FAM_X86 ? "an x86" : "an Arm", OWN_NAME);
		name[0] = feat[0] = '\0'; /* the host's, not the CPU the kernel runs on */
	}
	if (OWN_FAMILY == FAM_ARM) {
		feat[0] = '\0';
		arm_hwcaps(feat, sizeof feat);
	}
	snprintf(p->cpu, sizeof p->cpu, "%s%s%s%s", name, name[0] && feat[0] ? "; " : "",
	         feat[0] ? "features: " : "", feat);
}

int qc_is_sha256_hex(const char *s)
{
	for (int i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[64] == '\0';
}

size_t qc_worker_memory_default(int share)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t ram = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)8 << 30;
	size_t each = ram / 2 / (size_t)(share > 0 ? share : 1);
	size_t floor = (size_t)1 << 30;
	if (floor > ram)
		floor = ram;
	return each < floor ? floor : each;
}
