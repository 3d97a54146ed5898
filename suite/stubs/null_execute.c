/* A descriptor without the required execute function. */
#include "stub.h"

STUB_PLUGIN_FULL("null_execute", stub_supports, NULL, NULL, NULL)
