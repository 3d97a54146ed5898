/*
 * The entry point of the coverage build of the reference plugin
 * (suite/refusals/refusals.mk): reference/plugin.c is compiled with its entry
 * renamed to qref_cov_negotiate, and this one answers with the same
 * descriptor but a destroy() that writes the coverage counts. The worker
 * leaves with _exit() after destroy(), which skips the exit handlers that
 * would write them.
 */
#include "qconform/plugin.h"

qcf_status qref_cov_negotiate(qcf_negotiation *n);
void __gcov_dump(void);
void __gcov_reset(void);

static qcf_plugin descriptor;
static void (*inner_destroy)(qcf_instance *);

static void cov_destroy(qcf_instance *inst)
{
	inner_destroy(inst);
	__gcov_dump();
	__gcov_reset(); /* an exit that does run the handlers adds nothing twice */
}

QCF_EXPORT qcf_status qconform_plugin_negotiate(qcf_negotiation *n)
{
	qcf_status s = qref_cov_negotiate(n);
	if (s != QCF_OK || !n->plugin)
		return s;
	if (n->plugin != &descriptor) {
		descriptor = *n->plugin;
		inner_destroy = descriptor.destroy;
		descriptor.destroy = cov_destroy;
	}
	n->plugin = &descriptor;
	return s;
}
