/*
 * A bare-metal board for the streamed runner (harness/runner/qconform_runner.c,
 * -DQCONFORM_RUNNER_STREAMED): Arm's MPS2 boards as qemu-system-arm emulates them
 * (mps2-an385: Cortex-M3; mps2-an500: Cortex-M7), with the memory of mps2.ld. What a vendor
 * ports to another board is this file: the UART, the fault and watchdog handlers, the reset.
 *
 *   UART0 (CMSDK APB UART at 0x40004000)  the line to qconform feed: records out, cases in
 *   HardFault                             the case in flight is aborted CRASH, the board resets
 *   SysTick, every 10 ms                  a case running longer than QCB_CASE_SECONDS is
 *                                         aborted TIMEOUT, the board resets
 *   the vector table                      watched (an MPU-less core lets a write through NULL
 *                                         land there): a case that changes it is ERROR
 *
 * After a reset the runner asks the host for a session again, and qconform feed starts it
 * after the case that was running.
 */
#include <stddef.h>
#include <stdint.h>

#include "harness/runner/qconform_case.h"
#include "qconform/plugin.h"

#ifndef QCB_CASE_SECONDS
#define QCB_CASE_SECONDS 10
#endif

long qconform_runner_serve(const qcf_option *options, int n_options);
int qconform_runner_abort(unsigned kind, const char *message);
long qconform_runner_case(void);
int qconform_runner_watch(const void *start, unsigned long bytes);

/* ---- the UART ---- */

#define UART0_DATA    (*(volatile uint32_t *)0x40004000u)
#define UART0_STATE   (*(volatile uint32_t *)0x40004004u)
#define UART0_CTRL    (*(volatile uint32_t *)0x40004008u)
#define UART0_BAUDDIV (*(volatile uint32_t *)0x40004010u)
#define UART_TX_FULL  1u
#define UART_RX_FULL  2u

void qconform_runner_putc(int byte)
{
	while (UART0_STATE & UART_TX_FULL)
		;
	UART0_DATA = (uint32_t)(unsigned char)byte;
}

int qconform_runner_getc(void)
{
	while (!(UART0_STATE & UART_RX_FULL))
		;
	return (int)(UART0_DATA & 0xffu);
}

static void qcb_puts(const char *s)
{
	while (*s)
		qconform_runner_putc(*s++);
}

/* ---- reset, faults, the watchdog ---- */

#define SCB_AIRCR  (*(volatile uint32_t *)0xE000ED0Cu)
#define SCB_CPACR  (*(volatile uint32_t *)0xE000ED88u)
#define SCB_CFSR   (*(volatile uint32_t *)0xE000ED28u)
#define SYST_CSR   (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR   (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR   (*(volatile uint32_t *)0xE000E018u)
#define QCB_SYSCLK 25000000u /* the MPS2's 25 MHz */

static void qcb_reset_board(void)
{
	__asm__ volatile("dsb");
	SCB_AIRCR = 0x05FA0004u; /* VECTKEY, SYSRESETREQ */
	__asm__ volatile("dsb");
	for (;;)
		;
}

static void qcb_hex(char *out, uint32_t v)
{
	int i;
	for (i = 7; i >= 0; i--, v >>= 4)
		out[i] = "0123456789abcdef"[v & 15u];
}

void qcb_hardfault(void)
{
	char msg[] = "HardFault on the device (CFSR 0x00000000)";
	qcb_hex(msg + sizeof msg - 10, SCB_CFSR);
	qconform_runner_abort(QCF_ABORT_CRASH, msg);
	qcb_reset_board();
}

static volatile long qcb_case = -1;
static volatile uint32_t qcb_ticks;

void qcb_systick(void)
{
	long c = qconform_runner_case();
	if (c < 0 || c != qcb_case) {
		qcb_case = c;
		qcb_ticks = 0;
		return;
	}
	if (++qcb_ticks >= QCB_CASE_SECONDS * 100u) {
		qconform_runner_abort(QCF_ABORT_TIMEOUT,
		                      "the board's watchdog: the case ran longer than its limit");
		qcb_reset_board();
	}
}

/* ---- start-up ---- */

extern uint32_t _data_start, _data_end, _data_load, _bss_start, _bss_end, _stack_top;
extern const unsigned char __vectors_start[], __vectors_end[];
int main(void);

void qcb_reset(void)
{
	uint32_t *d = &_data_start;
	const uint32_t *s = &_data_load;
#ifdef __ARM_FP
	SCB_CPACR |= 0xfu << 20; /* CP10 and CP11: the FPU, before any float instruction */
	__asm__ volatile("dsb\n\tisb");
#endif
	while (d < &_data_end)
		*d++ = *s++;
	for (d = &_bss_start; d < &_bss_end;)
		*d++ = 0;
	main();
	for (;;)
		;
}

static void qcb_default(void)
{
	qcb_hardfault();
}

__attribute__((section(".vectors"), used)) static void (*const qcb_vectors[16])(void) = {
        (void (*)(void))(uintptr_t)&_stack_top,
        qcb_reset,
        qcb_default,   /* NMI */
        qcb_hardfault, /* HardFault */
        qcb_default,   /* MemManage */
        qcb_default,   /* BusFault */
        qcb_default,   /* UsageFault */
        0,
        0,
        0,
        0,
        qcb_default, /* SVCall */
        qcb_default, /* DebugMonitor */
        0,
        qcb_default, /* PendSV */
        qcb_systick,
};

int main(void)
{
	UART0_BAUDDIV = 16;
	UART0_CTRL = 3; /* TX and RX */
	SYST_RVR = QCB_SYSCLK / 100u - 1u;
	SYST_CVR = 0;
	SYST_CSR = 7; /* the core's clock, interrupt, on */
	qconform_runner_watch(__vectors_start, (unsigned long)(__vectors_end - __vectors_start));
	qcb_puts("boot: qconform streamed runner, mps2\n");
	qconform_runner_serve(0, 0);
	qcb_puts("boot: the session ended\n");
	for (;;)
		__asm__ volatile("wfi");
}
