/*
 * locate: where a failing output's errors are, for the reports. An element's
 * coordinates over the output's shape and the names of the op's axes
 * (qref_output_axes), the axis its failing elements are counted along
 * (qc_metrics.along), and for the ops whose output is a requantized
 * accumulator the reference's accumulator and exact rescaled value of the
 * worst elements (qref_element_terms): computed after a failing verdict, for
 * the few elements a report lists, never on the comparison's path.
 */
#ifndef QC_LOCATE_H
#define QC_LOCATE_H

#include <stddef.h>
#include <stdint.h>

#include "judge/compare.h"

/* The axis the failing elements of output k of c are counted along: the op's output channel
 * axis, else the output's last axis; -1 for a scalar. */
int qc_along_axis(const qc_case *c, int k);

/* The coordinates of element index of a row-major tensor of this shape. */
void qc_coords(int32_t rank, const int64_t *shape, uint64_t index, int64_t *coords);

/* The names of output k's axes (qref_output_axes) into names; returns the rank and whether
 * the op names them (*named 0: they are d0, d1, ...). */
int qc_axis_names(const qc_case *c, int k, char (*names)[QREF_AXIS_NAME], int *named);

/* Sets the accumulator and real value of the worst elements of every output of r, where the
 * reference has them (the ops of qref_element_terms); leaves the others as they are. */
void qc_locate_worst(const qc_case *c, const qc_expected *ref, qc_result *r);

/* Worst element w of output k of c as text: "at [0,3,2,5] (n=0,h=3,w=2,c=5): expected 12 got
 * 13, acc 4711, real 12.4999" (the names when the op has them; acc and real when known). */
void qc_worst_text(const qc_case *c, int k, const qc_worst *w, char *buf, size_t size);

#endif
