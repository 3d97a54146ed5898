/*
 * The reference plugin with four faults, for the bare-metal runner's tests (suite/test_mcu.c):
 * the kernel answers as the reference does, then, when the case in flight is
 *   case 5     an undefined instruction: HardFault
 *   case 7     loops for ever: the board's watchdog
 *   case 9     writes through a null pointer: on an MPU-less core it lands in the vector
 *              table (the board watches it)
 *   case 11    writes 256 bytes past the end of output 0, beyond its guard bytes
 */
#include <stdint.h>

#include "qconform/plugin.h"

qcf_status qcref_negotiate(qcf_negotiation *n);

static qcf_plugin wrapped;
static qcf_status (*inner_execute)(qcf_instance *, qcf_prepared *, const qcf_op_call *);
volatile uintptr_t fault_zero; /* 0, out of the compiler's sight */

long qconform_runner_case(void);

static qcf_status fault_execute(qcf_instance *inst, qcf_prepared *prep, const qcf_op_call *call)
{
	qcf_status st = inner_execute(inst, prep, call);
	switch (qconform_runner_case()) {
	case 5: __asm__ volatile("udf #0"); break;
	case 7:
		for (;;)
			__asm__ volatile("");
	case 9: *(volatile uint32_t *)(fault_zero + 8u) = 0xdeadbeefu; break;
	case 11:
		if (call->n_outputs > 0)
			((volatile unsigned char *)call->outputs[0]
			         .data)[call->outputs[0].nbytes + 256u] ^= 0x5a;
		break;
	}
	return st;
}

qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	qcf_status st = qcref_negotiate(n);
	if (st != QCF_OK || !n->plugin)
		return st;
	wrapped = *n->plugin;
	inner_execute = wrapped.execute;
	wrapped.execute = fault_execute;
	n->plugin = &wrapped;
	return QCF_OK;
}
