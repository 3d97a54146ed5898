/* float8 QuantizeLinear ignoring saturate = 1 (lowbit_mistakes.h). */
#define MISTAKE "no_saturate"
#include "lowbit_mistakes.h"
