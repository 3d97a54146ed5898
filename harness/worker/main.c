/*
 * qconform-worker: the process a plugin runs in. The harness starts it (see
 * harness/src/run/wire.h for its command line); it is not meant to be run by hand.
 */
#include "run/wire.h"

int main(int argc, char **argv)
{
	return qc_worker_main(argc, argv);
}
