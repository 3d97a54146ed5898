/* float8 QuantizeLinear truncating subnormal results (lowbit_mistakes.h). */
#define MISTAKE "subnormal_trunc"
#include "lowbit_mistakes.h"
