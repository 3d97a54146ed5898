/* cases_tensor: a case's tensors: dtype, shape and quantization parameters (scale and zero
 * point, per axis, blocked, from a range, or chosen from the reference's result: auto). */
#include "cases/cases_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases/qparams.h"
#include "reference/dtype.h"
#include "reference/qref.h"

/* ---- tensors ---- */

yaml_node_t *qc_cases_tget(qc_cases *it, const tview *t, const char *key)
{
	if (t->over) {
		if (t->over->type == YAML_SEQUENCE_NODE) {
			if (strcmp(key, "data") == 0)
				return t->over;
		} else {
			yaml_node_t *v = qc_map_get(it->s, t->over, key);
			if (v)
				return v;
		}
	}
	return qc_map_get(it->s, t->base, key);
}

static int build_shape(qc_cases *it, yaml_node_t *n, int64_t *shape, int32_t *rank)
{
	yaml_node_t *r = qc_cases_resolve(it, n);
	if (!r)
		return 0;
	if (r->type != YAML_SEQUENCE_NODE) {
		qc_cases_fail(it, n, "shape must be a list of sizes");
		return 0;
	}
	if (seq_len(it->s, r) > QCF_MAX_RANK) {
		qc_cases_fail(it, n, "rank %llu exceeds the maximum %d",
		              (unsigned long long)seq_len(it->s, r), QCF_MAX_RANK);
		return 0;
	}
	*rank = (int32_t)seq_len(it->s, r);
	for (int32_t i = 0; i < *rank; i++) {
		yaml_node_t *d = seq_at(it->s, r, (uint64_t)i);
		if (!qc_cases_get_int(it, d, &shape[i], "a dimension"))
			return 0;
		if (shape[i] < 0 || shape[i] > (1 << 28)) {
			qc_cases_fail(it, d, "dimension %lld out of range [0, 2^28]",
			              (long long)shape[i]);
			return 0;
		}
	}
	uint64_t n_el = 1; /* the product without overflow: 2^16 x 2^16 x 2^16 x 2^16 is not 0 */
	for (int32_t i = 0; i < *rank; i++) {
		if (shape[i] && n_el > QC_TENSOR_MAX_ELEMENTS / (uint64_t)shape[i]) {
			qc_cases_fail(it, n, "tensor of more than %llu elements is too large",
			              (unsigned long long)QC_TENSOR_MAX_ELEMENTS);
			return 0;
		}
		n_el *= (uint64_t)shape[i];
	}
	return 1;
}

static int check_scale(qc_cases *it, yaml_node_t *at, double s)
{
	if (it->expect_error)
		return 1;
	if (!(s > 0) || !isfinite(s) || !isfinite((float)s) || (float)s == 0) {
		qc_cases_fail(it, at, "scale %g must be finite and > 0 (as a float32)", s);
		return 0;
	}
	return 1;
}

static int check_zp(qc_cases *it, yaml_node_t *at, int64_t zp, qcf_dtype dt)
{
	int64_t lo, hi;
	if (it->expect_error || !qref_dtype_range(dt, &lo, &hi))
		return 1;
	if (zp < lo || zp > hi) {
		qc_cases_fail(it, at, "zero point %lld outside %s [%lld, %lld]", (long long)zp,
		              qref_dtype_name(dt), (long long)lo, (long long)hi);
		return 0;
	}
	return 1;
}

/* Converts one (scale, zp) / (mean, std_dev) / (min, max) form. */
/* nudge and narrow_range of a quant mapping. */
int qc_cases_quant_options(qc_cases *it, yaml_node_t *r, int *nudge, int *narrow)
{
	yaml_node_t *v;
	*nudge = QC_NUDGE_TF;
	*narrow = 0;
	if ((v = qc_map_get(it->s, r, "nudge"))) {
		const char *nm = qc_cases_get_str(it, v, "nudge");
		if (!nm)
			return 0;
		if ((*nudge = qc_nudge_parse(nm)) < 0) {
			qc_cases_fail(it, v, "unknown nudge '%s' (tf, onnx or symmetric)", nm);
			return 0;
		}
	}
	if ((v = qc_map_get(it->s, r, "narrow_range"))) {
		double b;
		if (!qc_cases_get_num(it, v, &b, "narrow_range"))
			return 0;
		*narrow = b != 0;
	}
	return 1;
}

/* One (scale, zp) / (mean, std_dev) / (min, max) form of mapping r over [qmin, qmax].
 * The zero point of the (scale, zp) form is checked against dtype zp_dt (if not INVALID)
 * and against [qmin, qmax]. */
int qc_cases_one_qparams(qc_cases *it, yaml_node_t *r, int nudge, int64_t qmin, int64_t qmax,
                         qcf_dtype zp_dt, float *scale, int32_t *zp)
{
	const qc_spec *s = it->s;
	yaml_node_t *scale_n = qc_map_get(s, r, "scale"), *zp_n = qc_map_get(s, r, "zero_point");
	yaml_node_t *mean_n = qc_map_get(s, r, "mean"), *std_n = qc_map_get(s, r, "std_dev");
	yaml_node_t *min_n = qc_map_get(s, r, "min"), *max_n = qc_map_get(s, r, "max");
	char err[256];
	qc_qparams qp;
	int forms = !!scale_n + !!(mean_n || std_n) + !!(min_n || max_n);
	if (forms != 1) {
		qc_cases_fail(it, r,
		              "quant takes exactly one of: scale (+ zero_point), mean + std_dev, "
		              "min + max");
		return 0;
	}
	double a, b;
	int rc;
	if (scale_n) {
		int64_t z = 0;
		if (!qc_cases_get_num(it, scale_n, &a, "scale") ||
		    (zp_n && !qc_cases_get_int(it, zp_n, &z, "zero_point")))
			return 0;
		if (!check_scale(it, scale_n, a) || !check_zp(it, zp_n ? zp_n : scale_n, z, zp_dt))
			return 0;
		if (zp_dt != QCF_DTYPE_INVALID || it->expect_error) {
			*scale = (float)a;
			*zp = (int32_t)z;
			return 1;
		}
		rc = qc_qparams_from_scale_zp(a, z, qmin, qmax, &qp, err, sizeof err);
	} else if (zp_n) {
		qc_cases_fail(it, zp_n,
		              "zero_point goes with scale, not with mean/std_dev or min/max");
		return 0;
	} else if (mean_n || std_n) {
		if (!mean_n || !std_n) {
			qc_cases_fail(it, r, "mean and std_dev go together");
			return 0;
		}
		if (!qc_cases_get_num(it, mean_n, &a, "mean") ||
		    !qc_cases_get_num(it, std_n, &b, "std_dev"))
			return 0;
		rc = qc_qparams_from_mean_std(a, b, qmin, qmax, &qp, err, sizeof err);
	} else {
		if (!min_n || !max_n) {
			qc_cases_fail(it, r, "min and max go together");
			return 0;
		}
		if (!qc_cases_get_num(it, min_n, &a, "min") ||
		    !qc_cases_get_num(it, max_n, &b, "max"))
			return 0;
		rc = qc_qparams_from_min_max(a, b, qmin, qmax, (qc_nudge)nudge, &qp, err,
		                             sizeof err);
	}
	if (rc != 0) {
		qc_cases_fail(it, r, "%s", err);
		return 0;
	}
	*scale = qp.scale;
	*zp = qp.zero_point;
	return 1;
}

static int build_quant_values(qc_cases *it, qc_case *c, yaml_node_t *qn, yaml_node_t *r,
                              qcf_tensor *t, qcf_quant *q);

/*
 * A tensor's quant: its values (build_quant_values), then what ABI version 2 adds.
 * scale_dtype (float32, float16, bfloat16, float8e8m0, float8e4m3fn): the type a model stores
 * the scales in; each scale is rounded to it (nearest even; e8m0: the nearest power of two)
 * and must stay finite and > 0. A float8/6/4 tensor's zero point is a value of its own type
 * (ONNX QuantizeLinear's y_zero_point of a float8 type): an integer that type holds exactly,
 * in float_zero_points, with zero_point_dtype set to the tensor's type.
 */
static int build_quant(qc_cases *it, qc_case *c, yaml_node_t *qn, qcf_tensor *t, qcf_quant *q)
{
	yaml_node_t *r = qc_cases_resolve(it, qn);
	if (!r)
		return 0;
	if (r->type != YAML_MAPPING_NODE) {
		qc_cases_fail(it, qn, "quant must be a mapping");
		return 0;
	}
	if (!build_quant_values(it, c, qn, r, t, q))
		return 0;
	yaml_node_t *sd_n = qc_map_get(it->s, r, "scale_dtype");
	if (sd_n) {
		const char *name = qc_cases_get_str(it, sd_n, "scale_dtype");
		if (!name)
			return 0;
		qcf_dtype sd = qref_dtype_parse(name);
		if (sd != QCF_FLOAT32 && sd != QCF_FLOAT16 && sd != QCF_BFLOAT16 &&
		    sd != QCF_FLOAT8E8M0 && sd != QCF_FLOAT8E4M3FN) {
			qc_cases_fail(it, sd_n,
			              "scale_dtype '%s': float32, float16, bfloat16, float8e8m0 or "
			              "float8e4m3fn",
			              name);
			return 0;
		}
		if (q->count > 0 && q->scales && sd != QCF_FLOAT32) {
			float *sc = qc_case_alloc(c, (size_t)q->count * sizeof *sc);
			int64_t one = 1;
			qcf_tensor cell = {sizeof cell, "scale", sd, 1, &one, NULL, 8, NULL};
			uint8_t buf[8];
			cell.data = buf;
			for (int32_t i = 0; i < q->count; i++) {
				memset(buf, 0, sizeof buf);
				qref_set(&cell, 0, q->scales[i]);
				sc[i] = (float)qref_get(&cell, 0);
				if (!(sc[i] > 0) || !isfinite(sc[i])) {
					if (it->expect_error)
						continue;
					qc_cases_fail(it, sd_n,
					              "scale %g is %g as %s: a scale must be "
					              "finite and > 0",
					              (double)q->scales[i], (double)sc[i], name);
					return 0;
				}
			}
			q->scales = sc;
		}
		q->scale_dtype = sd;
	}
	if (qref_dtype_is_small_float(t->dtype) && q->zero_points) {
		float *fz = qc_case_alloc(c, (size_t)q->count * sizeof *fz);
		for (int32_t i = 0; i < q->count; i++) {
			double z = q->zero_points[i];
			if (qref_small_to_f32(t->dtype, qref_small_from(t->dtype, z, 0)) != z &&
			    !it->expect_error) {
				qc_cases_fail(it, qn, "zero point %g is not a %s value", z,
				              qref_dtype_name(t->dtype));
				return 0;
			}
			fz[i] = (float)z;
		}
		q->float_zero_points = fz;
		q->zero_point_dtype = t->dtype;
	}
	return 1;
}

static int build_quant_values(qc_cases *it, qc_case *c, yaml_node_t *qn, yaml_node_t *r,
                              qcf_tensor *t, qcf_quant *q)
{
	const qc_spec *s = it->s;
	int nudge, narrow;
	int64_t qmin, qmax;
	if (!qc_cases_quant_options(it, r, &nudge, &narrow))
		return 0;
	if (qref_dtype_is_small_float(t->dtype)) {
		/* scale (+ zero_point) forms only: the ranges' forms are integer arithmetic */
		if (qc_map_get(s, r, "mean") || qc_map_get(s, r, "min") ||
		    qc_map_get(s, r, "auto")) {
			qc_cases_fail(it, qn,
			              "a %s tensor's quant takes scale (+ zero_point) or scales",
			              qref_dtype_name(t->dtype));
			return 0;
		}
		qmin = qmax = 0;
	} else if (t->dtype == QCF_INT64) {
		/* an int64 bias carries (scale, 0): the range forms need a range qparams can hold
		 */
		qmin = INT64_MIN;
		qmax = INT64_MAX;
	} else if (!qc_dtype_qrange(t->dtype, narrow, &qmin, &qmax)) {
		qc_cases_fail(it, qn, "quant needs an integer dtype, not %s",
		              qref_dtype_name(t->dtype));
		return 0;
	}
	memset(q, 0, sizeof *q);
	q->struct_size = sizeof *q;
	yaml_node_t *auto_n = qc_map_get(s, r, "auto");
	if (auto_n) {
		/* chosen once the inputs exist (qc_cases_auto_quant); a placeholder until then */
		const char *how = qc_cases_get_str(it, auto_n, "auto");
		if (!how)
			return 0;
		if (strcmp(how, "range") != 0) {
			qc_cases_fail(
			        it, auto_n,
			        "auto must be 'range' (parameters from the real-valued result)");
			return 0;
		}
		for (yaml_node_pair_t *p = r->data.mapping.pairs.start;
		     p < r->data.mapping.pairs.top; p++) {
			const char *k = qc_scalar(qc_node(s, p->key));
			if (strcmp(k, "auto") && strcmp(k, "nudge") && strcmp(k, "narrow_range")) {
				qc_cases_fail(it, qc_node(s, p->key),
				              "auto quant takes only nudge and narrow_range "
				              "besides auto");
				return 0;
			}
		}
		float *sc = qc_case_alloc(c, sizeof *sc);
		int32_t *zp = qc_case_alloc(c, sizeof *zp);
		*sc = 1;
		q->axis = -1;
		q->count = 1;
		q->scales = sc;
		q->zero_points = zp;
		int k = (int)(t - c->out);
		if (k < 0 || k >= QC_MAX_OUTPUTS) {
			qc_cases_fail(it, auto_n, "auto quant is for outputs");
			return 0;
		}
		c->auto_quant[k] = 1;
		c->auto_nudge[k] = qc_map_get(s, r, "nudge") ? nudge : QC_NUDGE_ONNX;
		c->auto_qmin[k] = qmin;
		c->auto_qmax[k] = qmax;
		c->auto_node[k] = auto_n;
		return 1;
	}
	yaml_node_t *axis_n = qc_map_get(s, r, "axis");
	yaml_node_t *scales_n = qc_map_get(s, r, "scales");
	yaml_node_t *zps_n = qc_map_get(s, r, "zero_points");
	if (!axis_n) {
		if (qc_map_get(s, r, "block_size")) {
			qc_cases_fail(it, qc_map_get(s, r, "block_size"),
			              "block_size needs an axis (blocked quantization)");
			return 0;
		}
		if (scales_n || zps_n) {
			qc_cases_fail(it, scales_n ? scales_n : zps_n,
			              "scales/zero_points need an axis (per-axis quantization)");
			return 0;
		}
		float *sc = qc_case_alloc(c, sizeof *sc);
		int32_t *zp = qc_case_alloc(c, sizeof *zp);
		if (!qc_cases_one_qparams(it, r, nudge, qmin, qmax, t->dtype, sc, zp))
			return 0;
		q->axis = -1;
		q->count = 1;
		q->scales = sc;
		q->zero_points = zp;
		return 1;
	}
	int64_t axis;
	if (!qc_cases_get_int(it, axis_n, &axis, "axis"))
		return 0;
	if (axis < 0 || axis >= t->rank) {
		if (!it->expect_error) {
			qc_cases_fail(it, axis_n, "axis %lld out of range for a tensor of rank %d",
			              (long long)axis, t->rank);
			return 0;
		}
	}
	int64_t axis_size = axis >= 0 && axis < t->rank ? t->shape[axis] : -1;
	/* block_size (ONNX blocked quantization, opset 21): the scales are a tensor of t's shape
	 * with dimension axis replaced by ceil(shape[axis] / block_size), row-major */
	int64_t block_size = 0;
	yaml_node_t *bs_n = qc_map_get(s, r, "block_size");
	if (bs_n) {
		if (!qc_cases_get_int(it, bs_n, &block_size, "block_size"))
			return 0;
		if ((block_size < 0 || block_size > INT32_MAX) && !it->expect_error) {
			qc_cases_fail(it, bs_n, "block_size must be > 0 (0: not blocked), got %lld",
			              (long long)block_size);
			return 0;
		}
		if (block_size < INT32_MIN || block_size > INT32_MAX) {
			qc_cases_fail(it, bs_n, "block_size %lld is not an int32",
			              (long long)block_size);
			return 0;
		}
		if (block_size > 0 && axis_size >= 0) {
			int64_t n = 1;
			for (int k = 0; k < t->rank && n >= 0; k++) {
				int64_t d = k == axis ? (t->shape[k] + block_size - 1) / block_size
				                      : t->shape[k];
				n = d != 0 && n > (1 << 24) / d ? -1 : n * d;
			}
			axis_size = n; /* the number of scale entries */
		}
	}
	double *sv = NULL, *zv = NULL, *minv = NULL, *maxv = NULL;
	int64_t ns = -1, nz = -1, nmin = -1, nmax = -1;
	yaml_node_t *min_n = qc_map_get(s, r, "min"), *max_n = qc_map_get(s, r, "max");
	if (qc_map_get(s, r, "scale") || qc_map_get(s, r, "zero_point") ||
	    qc_map_get(s, r, "mean")) {
		qc_cases_fail(it, r,
		              "per-axis quant takes scales (+ zero_points) or min + max lists");
		return 0;
	}
	if (scales_n) {
		if ((ns = qc_cases_get_channel_nums(it, c, scales_n, axis_size, &sv, "scales")) < 0)
			return 0;
		if (zps_n && (nz = qc_cases_get_channel_nums(it, c, zps_n, axis_size, &zv,
		                                             "zero_points")) < 0)
			return 0;
	} else if (min_n && max_n) {
		if ((nmin = qc_cases_get_nums(it, c, min_n, &minv, "min")) < 0 ||
		    (nmax = qc_cases_get_nums(it, c, max_n, &maxv, "max")) < 0)
			return 0;
		if (nmin != nmax) {
			qc_cases_fail(it, max_n, "per-axis min has %lld values but max has %lld",
			              (long long)nmin, (long long)nmax);
			return 0;
		}
		ns = nmin;
	} else {
		qc_cases_fail(it, r, "per-axis quant needs scales (or min and max lists)");
		return 0;
	}
	if (nz >= 0 && nz != ns) {
		qc_cases_fail(it, zps_n, "%lld zero_points for %lld scales", (long long)nz,
		              (long long)ns);
		return 0;
	}
	if (ns != axis_size && !it->expect_error) {
		if (block_size > 0)
			qc_cases_fail(it, scales_n ? scales_n : min_n,
			              "blocked count %lld differs from the %lld entries of the "
			              "blocked scale tensor (axis %lld, block_size %lld)",
			              (long long)ns, (long long)axis_size, (long long)axis,
			              (long long)block_size);
		else
			qc_cases_fail(it, scales_n ? scales_n : min_n,
			              "per-axis count %lld differs from the size %lld of axis %lld",
			              (long long)ns, (long long)axis_size, (long long)axis);
		return 0;
	}
	if (ns < 1 || ns > (1 << 24)) {
		qc_cases_fail(it, scales_n ? scales_n : min_n,
		              "per-axis quant needs 1 to 2^24 channels");
		return 0;
	}
	float *sc = qc_case_alloc(c, (size_t)ns * sizeof *sc);
	int32_t *zp = qc_case_alloc(c, (size_t)ns * sizeof *zp);
	for (int64_t i = 0; i < ns; i++) {
		if (sv) {
			yaml_node_t *at = scales_n;
			if (!check_scale(it, at, sv[i]))
				return 0;
			sc[i] = (float)sv[i];
			if (zv) {
				if (zv[i] != floor(zv[i]) || fabs(zv[i]) > 2147483647.0) {
					qc_cases_fail(it, zps_n, "zero point %g is not an int32",
					              zv[i]);
					return 0;
				}
				if (!check_zp(it, zps_n, (int64_t)zv[i], t->dtype))
					return 0;
				zp[i] = (int32_t)zv[i];
			}
		} else {
			char err[256];
			qc_qparams qp;
			if (qc_qparams_from_min_max(minv[i], maxv[i], qmin, qmax, (qc_nudge)nudge,
			                            &qp, err, sizeof err) != 0) {
				qc_cases_fail(it, min_n, "channel %lld: %s", (long long)i, err);
				return 0;
			}
			sc[i] = qp.scale;
			zp[i] = qp.zero_point;
		}
	}
	q->axis = (int32_t)axis;
	q->block_size = (int32_t)block_size;
	q->count = (int32_t)ns;
	q->scales = sc;
	q->zero_points = zp;
	return 1;
}

int qc_cases_build_tensor(qc_cases *it, qc_case *c, const tview *tv, qcf_tensor *t, qcf_quant *q,
                          int64_t *shape, qc_tensor_nodes *where)
{
	where->tensor = tv->over && tv->over->type == YAML_MAPPING_NODE ? tv->over : tv->base;
	where->dtype = qc_cases_tget(it, tv, "dtype");
	where->shape = qc_cases_tget(it, tv, "shape");
	where->quant = qc_cases_tget(it, tv, "quant");
	where->data = qc_cases_tget(it, tv, "data");
	memset(t, 0, sizeof *t);
	t->struct_size = sizeof *t;
	t->name = tv->name;
	yaml_node_t *dn = qc_cases_tget(it, tv, "dtype");
	const char *dts = dn ? qc_cases_get_str(it, dn, "dtype") : NULL;
	if (!dts)
		return 0;
	t->dtype = qref_dtype_parse(dts);
	if (t->dtype == QCF_DTYPE_INVALID) {
		qc_cases_fail(it, dn, "unknown dtype '%s'", dts);
		return 0;
	}
	if (!build_shape(it, qc_cases_tget(it, tv, "shape"), shape, &t->rank))
		return 0;
	t->shape = shape;
	size_t n = qref_numel(t->rank, shape);
	t->nbytes = qcf_dtype_nbytes(t->dtype, n);
	yaml_node_t *qn = qc_cases_tget(it, tv, "quant");
	yaml_node_t *qr = qn ? qc_cases_resolve(it, qn) : NULL;
	if (qn && !qr)
		return 0;
	const char *qs = qc_scalar(qr);
	int none = qs && !qc_scalar_is_quoted(qr) &&
	           (!*qs || !strcmp(qs, "~") || !strcmp(qs, "null") || !strcmp(qs, "none"));
	if (qn && !none) {
		if (!build_quant(it, c, qn, t, q))
			return 0;
		t->quant = q;
	}
	return 1;
}

/* quant: {auto: range}: the output's parameters from the range of the reference's
 * real-valued result, so that the output covers its dtype instead of saturating. */
int qc_cases_auto_quant(qc_cases *it, qc_case *c, int k)
{
	qcf_tensor *t = &c->out[k];
	size_t n = qref_numel(t->rank, t->shape);
	double *v = malloc((n ? n : 1) * sizeof *v);
	char msg[256] = "";
	if (!v) {
		qc_cases_fail(it, c->auto_node[k], "out of memory");
		return 0;
	}
	qcf_status st = qref_real_output_msg(&c->call, k, v, msg, sizeof msg);
	if (st != QCF_OK) {
		free(v);
		qc_cases_fail(it, c->auto_node[k],
		              "auto: the reference has no real-valued result here: %s", msg);
		return 0;
	}
	double lo = 0, hi = 0; /* the range always holds 0, so that 0 is exact */
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	free(v);
	qc_qparams qp;
	char err[256];
	if (qc_qparams_from_min_max(lo, hi, c->auto_qmin[k], c->auto_qmax[k],
	                            (qc_nudge)c->auto_nudge[k], &qp, err, sizeof err) != 0) {
		qc_cases_fail(it, c->auto_node[k], "auto: range [%g, %g]: %s", lo, hi, err);
		return 0;
	}
	*(float *)t->quant->scales = qp.scale;
	*(int32_t *)t->quant->zero_points = qp.zero_point;
	return 1;
}
