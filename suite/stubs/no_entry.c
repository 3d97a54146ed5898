/* Exports a function, but not the entry symbol. */
#include "stub.h"

QCF_EXPORT int qconform_plugin_version(void);

QCF_EXPORT int qconform_plugin_version(void)
{
	return 1;
}
