/* cases_data: the data of a case's inputs: explicit lists, generators (edges of a grid among
 * them) and Lua generators; GGML block tensors quantized row by row. */
#include "cases/cases_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases/qparams.h"
#include "reference/dtype.h"
#include "reference/ggml.h"
#include "spec/gen.h"
#include "spec/slua.h"

/* ---- tensors: data ---- */

/* The float values gf (NULL: nothing to do) of a GGML block tensor, quantized row by row with
 * the format's reference quantizer (reference/ggml.h); frees gf. */
static int ggml_rows(qc_cases *it, yaml_node_t *at, qcf_tensor *t, float *gf)
{
	if (!gf)
		return 1;
	int ok = qref_ggml_fill(t, gf) == 0;
	free(gf);
	if (!ok)
		qc_cases_fail(it, at, "'%s' (%s) needs a last dimension that is a multiple of %zu",
		              t->name, qref_dtype_name(t->dtype),
		              qcf_ggml_block_elements(t->dtype));
	return ok;
}

/* Explicit data: exactly one number per element, within the dtype. */
int qc_cases_fill_explicit(qc_cases *it, qcf_tensor *t, yaml_node_t *dn)
{
	yaml_node_t *r = qc_cases_resolve(it, dn);
	if (!r)
		return 0;
	size_t n = qref_numel(t->rank, t->shape);
	if (r->type != YAML_SEQUENCE_NODE || seq_len(it->s, r) != n) {
		qc_cases_fail(it, dn, "data of '%s' needs %zu values (its shape), got %llu",
		              t->name, n,
		              r->type == YAML_SEQUENCE_NODE ? (unsigned long long)seq_len(it->s, r)
		                                            : 0ull);
		return 0;
	}
	int64_t lo = 0, hi = 0;
	int is_int = qref_dtype_range(t->dtype, &lo, &hi);
	/* a GGML block tensor: float values, quantized row by row (ggml_rows) */
	float *gf = qref_ggml_is_block(t->dtype) ? malloc((n ? n : 1) * sizeof *gf) : NULL;
	if (qref_ggml_is_block(t->dtype) && !gf) {
		qc_cases_fail(it, dn, "out of memory");
		return 0;
	}
	const qc_yaml_pack *p = qc_yaml_pack_of(&it->s->doc, &it->s->packs, r);
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *e;
		double v;
		if (!qc_cases_seq_num(it, r, p, i, &v, &e, "a data value")) {
			free(gf);
			return 0;
		}
		if (is_int && v != floor(v)) {
			qc_cases_fail(it, e ? e : qc_cases_pack_err_node(it, r, p, (uint32_t)i),
			              "value %g is not an integer (dtype %s)", v,
			              qref_dtype_name(t->dtype));
			free(gf);
			return 0;
		}
		if (is_int && (v < (double)lo || v > (double)hi)) {
			qc_cases_fail(it, e ? e : qc_cases_pack_err_node(it, r, p, (uint32_t)i),
			              "value %g outside %s [%lld, %lld]", v,
			              qref_dtype_name(t->dtype), (long long)lo, (long long)hi);
			free(gf);
			return 0;
		}
		if (gf)
			gf[i] = (float)v;
		else
			qref_set(t, i, v);
	}
	return ggml_rows(it, dn, t, gf);
}

/* [qmin, qmax] of an edges grid: qmin/qmax keys, else the quantized dtype's range. */
static int edges_range(qc_cases *it, yaml_node_t *gn, qcf_dtype dt, qc_grid *grid)
{
	yaml_node_t *v;
	if (!qc_dtype_qrange(qref_dtype_is_int(dt) ? dt : QCF_INT8, 0, &grid->qmin, &grid->qmax))
		qc_dtype_qrange(QCF_INT8, 0, &grid->qmin, &grid->qmax);
	if ((v = qc_map_get(it->s, gn, "qmin")) && !qc_cases_get_int(it, v, &grid->qmin, "qmin"))
		return 0;
	if ((v = qc_map_get(it->s, gn, "qmax")) && !qc_cases_get_int(it, v, &grid->qmax, "qmax"))
		return 0;
	return 1;
}

/* edges: {quant: {min, max, nudge, narrow_range} | {scale, zero_point} | {mean, std_dev}} */
static int edges_quant(qc_cases *it, qc_case *c, yaml_node_t *gn, yaml_node_t *qn,
                       const qcf_tensor *t, qcf_quant *gq, qc_grid *grid)
{
	yaml_node_t *r = qc_cases_resolve(it, qn);
	if (!r)
		return 0;
	if (r->type != YAML_MAPPING_NODE) {
		qc_cases_fail(it, qn, "edges quant must be a mapping");
		return 0;
	}
	if (!edges_range(it, gn, t->dtype, grid))
		return 0;
	int nudge, narrow;
	if (!qc_cases_quant_options(it, r, &nudge, &narrow))
		return 0;
	grid->qmin += narrow;
	if (grid->qmin > grid->qmax) {
		qc_cases_fail(it, gn, "edges qmin %lld > qmax %lld", (long long)grid->qmin,
		              (long long)grid->qmax);
		return 0;
	}
	float *sc = qc_case_alloc(c, sizeof *sc);
	int32_t *zp = qc_case_alloc(c, sizeof *zp);
	/* a grid's zero point is checked against its own [qmin, qmax], not a dtype */
	if (!qc_cases_one_qparams(it, r, nudge, grid->qmin, grid->qmax, QCF_DTYPE_INVALID, sc, zp))
		return 0;
	*gq = (qcf_quant){sizeof *gq, -1, 1, sc, zp, NULL, 0, QCF_DTYPE_INVALID, QCF_DTYPE_INVALID};
	return 1;
}

int qc_cases_fill_generated(qc_cases *it, qc_case *c, qcf_tensor *t, yaml_node_t *gn,
                            uint64_t repeat)
{
	const qc_spec *s = it->s;
	qc_gen g;
	memset(&g, 0, sizeof g);
	int nonfinite = 0;
	const char *kind = qc_cases_get_str(it, qc_map_get(s, gn, "gen"), "gen");
	if (!kind)
		return 0;
	int k = qc_gen_kind_parse(kind);
	if (k < 0) {
		qc_cases_fail(it, qc_map_get(s, gn, "gen"),
		              "unknown generator '%s' (uniform, normal, choice, sequence, edges)",
		              kind);
		return 0;
	}
	g.kind = (qc_gen_kind)k;
	yaml_node_t *v, *min_n = qc_map_get(s, gn, "min"), *max_n = qc_map_get(s, gn, "max");
	if (!!min_n != !!max_n) {
		qc_cases_fail(it, gn, "generator min and max go together");
		return 0;
	}
	if (min_n) {
		if (!qc_cases_get_num(it, min_n, &g.lo, "min") ||
		    !qc_cases_get_num(it, max_n, &g.hi, "max"))
			return 0;
		if (!(g.lo <= g.hi)) {
			qc_cases_fail(it, gn, "generator min %g > max %g", g.lo, g.hi);
			return 0;
		}
		g.has_range = 1;
	}
	if ((v = qc_map_get(s, gn, "mean")) && !qc_cases_get_num(it, v, &g.mean, "mean"))
		return 0;
	if ((v = qc_map_get(s, gn, "std")) && !qc_cases_get_num(it, v, &g.std, "std"))
		return 0;
	if (g.std < 0) {
		qc_cases_fail(it, v, "std must be >= 0");
		return 0;
	}
	if ((v = qc_map_get(s, gn, "values"))) {
		double *vals;
		int64_t nv = qc_cases_get_nums(it, c, v, &vals, "values");
		if (nv < 0)
			return 0;
		if (nv == 0) {
			qc_cases_fail(it, v, "values must not be empty");
			return 0;
		}
		g.values = vals;
		g.n_values = (size_t)nv;
	}
	if ((g.kind == QC_GEN_CHOICE || g.kind == QC_GEN_SEQUENCE) && !g.values) {
		qc_cases_fail(it, gn, "generator '%s' needs values", kind);
		return 0;
	}
	if ((v = qc_map_get(s, gn, "nonfinite"))) {
		double b;
		if (!qc_cases_get_num(it, v, &b, "nonfinite"))
			return 0;
		nonfinite = b != 0;
	}

	/* The grid whose edges matter: explicit, a named tensor's quant, or the first quantized
	 * tensor. */
	qc_grid grid;
	memset(&grid, 0, sizeof grid);
	qcf_quant gq = {sizeof gq,        -1, 1, NULL, NULL, NULL, 0, QCF_DTYPE_INVALID,
	                QCF_DTYPE_INVALID};
	const qcf_tensor *gt = NULL;
	if (g.kind == QC_GEN_EDGES) {
		yaml_node_t *sn = qc_map_get(s, gn, "scale"), *zn = qc_map_get(s, gn, "zero_point");
		yaml_node_t *an = qc_map_get(s, gn, "axis"), *grid_n = qc_map_get(s, gn, "grid");
		yaml_node_t *qn = qc_map_get(s, gn, "quant");
		if (qn && (sn || grid_n)) {
			qc_cases_fail(it, qn,
			              "edges take one of: scale (+ zero_point), quant, grid");
			return 0;
		}
		if (qn) {
			/* a grid given in any parameter form, over [qmin, qmax] of the generator */
			if (!edges_quant(it, c, gn, qn, t, &gq, &grid))
				return 0;
			grid.quant = &gq;
		} else if (sn) {
			double *sv, *zv = NULL;
			int64_t ns, nz = 0;
			yaml_node_t *sr = qc_cases_resolve(it, sn);
			if (!sr)
				return 0;
			if (sr->type == YAML_SEQUENCE_NODE) {
				if ((ns = qc_cases_get_nums(it, c, sn, &sv, "scale")) < 0)
					return 0;
			} else {
				sv = qc_case_alloc(c, sizeof *sv);
				ns = 1;
				if (!qc_cases_get_num(it, sn, sv, "scale"))
					return 0;
			}
			if (zn) {
				yaml_node_t *zr = qc_cases_resolve(it, zn);
				if (!zr)
					return 0;
				if (zr->type == YAML_SEQUENCE_NODE) {
					if ((nz = qc_cases_get_nums(it, c, zn, &zv, "zero_point")) <
					    0)
						return 0;
				} else {
					zv = qc_case_alloc(c, sizeof *zv);
					nz = 1;
					if (!qc_cases_get_num(it, zn, zv, "zero_point"))
						return 0;
				}
				if (nz != ns) {
					qc_cases_fail(it, zn, "%lld zero points for %lld scales",
					              (long long)nz, (long long)ns);
					return 0;
				}
			}
			float *sc = qc_case_alloc(c, (size_t)ns * sizeof *sc);
			int32_t *zp = qc_case_alloc(c, (size_t)ns * sizeof *zp);
			for (int64_t i = 0; i < ns; i++) {
				if (!(sv[i] > 0) || !isfinite(sv[i])) {
					qc_cases_fail(it, sn,
					              "edges scale %g must be finite and > 0",
					              sv[i]);
					return 0;
				}
				sc[i] = (float)sv[i];
				zp[i] = zv ? (int32_t)llrint(zv[i]) : 0;
			}
			gq.scales = sc;
			gq.zero_points = zp;
			gq.count = (int32_t)ns;
			if (ns > 1 || an) {
				int64_t axis = 0;
				if (!an || !qc_cases_get_int(it, an, &axis, "axis"))
					return an ? 0
					          : (qc_cases_fail(
					                     it, sn,
					                     "a list of edge scales needs an axis"),
					             0);
				if (axis < 0 || axis >= t->rank || t->shape[axis] != ns) {
					qc_cases_fail(
					        it, an,
					        "edges axis %lld does not fit %lld scales on '%s'",
					        (long long)axis, (long long)ns, t->name);
					return 0;
				}
				gq.axis = (int32_t)axis;
			}
			grid.quant = &gq;
		} else {
			const char *gname = grid_n ? qc_cases_get_str(it, grid_n, "grid") : NULL;
			if (grid_n && !gname)
				return 0;
			for (int i = 0; i < c->call.n_outputs && !gt; i++)
				if ((gname && strcmp(c->out[i].name, gname) == 0) ||
				    (!gname && c->out[i].quant))
					gt = &c->out[i];
			for (int i = 0; i < c->call.n_inputs && !gt; i++)
				if ((gname && strcmp(c->in[i].name, gname) == 0) ||
				    (!gname && c->in[i].quant))
					gt = &c->in[i];
			if (gt && gt >= c->out && gt < c->out + QC_MAX_OUTPUTS &&
			    c->auto_quant[gt - c->out]) {
				qc_cases_fail(
				        it, gn,
				        "edges cannot use the grid of '%s': its parameters are "
				        "automatic",
				        gt->name);
				return 0;
			}
			if (gt && gt->quant && gt != t)
				grid.quant = gt->quant;
			else if (gt == t)
				grid.quant = t->quant;
			if (gt && grid.quant && qref_dtype_is_small_float(gt->dtype))
				grid.dtype = gt->dtype; /* the values of a float8/6/4, scaled */
			if (!grid.quant && !qref_dtype_is_int(t->dtype) &&
			    !qref_dtype_is_small_float(t->dtype) && t->dtype != QCF_FLOAT8E8M0) {
				qc_cases_fail(it, gn,
				              "edges of float tensor '%s' need a grid: scale (+ "
				              "zero_point), or "
				              "grid: NAME of a quantized tensor",
				              t->name);
				return 0;
			}
			/* per-axis grid of another tensor applies only with the same shape */
			if (grid.quant && grid.quant->axis >= 0 && gt && gt != t &&
			    (gt->rank != t->rank ||
			     memcmp(gt->shape, t->shape, (size_t)t->rank * 8))) {
				qc_cases_fail(
				        it, gn,
				        "per-axis grid of '%s' does not match the shape of '%s'",
				        gt->name, t->name);
				return 0;
			}
		}
		if (!qn && !edges_range(it, gn, gt ? gt->dtype : t->dtype, &grid))
			return 0;
		if (grid.qmin > grid.qmax) {
			qc_cases_fail(it, gn, "edges qmin %lld > qmax %lld", (long long)grid.qmin,
			              (long long)grid.qmax);
			return 0;
		}
		grid.nonfinite = nonfinite;
	}
	qc_rng rng;
	qc_rng_seed(&rng, qc_hash64(t->name, c->seed));
	char err[256];
	if (qc_gen_fill(&g, &rng, repeat, g.kind == QC_GEN_EDGES ? &grid : NULL, t, err,
	                sizeof err) != 0) {
		qc_cases_fail(it, gn, "%s", err);
		return 0;
	}
	return 1;
}

/* data: {lua: "return function(i, shape, rng) ... end"} */
int qc_cases_fill_lua(qc_cases *it, qc_case *c, qcf_tensor *t, yaml_node_t *gn)
{
	const qc_spec *s = it->s;
	if (gn->data.mapping.pairs.top - gn->data.mapping.pairs.start != 1) {
		qc_cases_fail(it, gn, "a Lua generator takes only the key lua");
		return 0;
	}
	yaml_node_t *ln = qc_map_get(s, gn, "lua");
	const char *chunk = qc_scalar(ln);
	qc_lua *L = chunk ? qc_cases_spec_lua(it, ln) : NULL;
	if (!chunk) {
		qc_cases_fail(it, ln, "lua must be a string holding a Lua chunk");
		return 0;
	}
	if (!L)
		return 0;
	size_t n = qref_numel(t->rank, t->shape);
	double *v = malloc((n ? n : 1) * sizeof *v);
	if (!v) {
		qc_cases_fail(it, ln, "out of memory");
		return 0;
	}
	qc_lbind b[2 * QC_MAX_VARS + 2 * QC_MAX_TENSORS + 1];
	int nb = qc_cases_bindings(it, b, (int)(sizeof b / sizeof b[0]));
	qc_rng rng;
	qc_rng_seed(&rng, qc_hash64(t->name, c->seed));
	char err[512];
	int line = 0;
	if (qc_lua_generate(L, chunk, b, nb, t->shape, t->rank, &rng, v, n, err, sizeof err,
	                    &line) != 0) {
		free(v);
		qc_cases_lua_fail(it, ln, err, line);
		return 0;
	}
	int64_t lo = 0, hi = 0;
	int is_int = qref_dtype_range(t->dtype, &lo, &hi);
	for (size_t i = 0; i < n; i++) {
		if (is_int && (v[i] != floor(v[i]) || v[i] < (double)lo || v[i] > (double)hi)) {
			qc_cases_fail(it, ln,
			              "the generator gave %g for element %zu, not a %s value", v[i],
			              i, qref_dtype_name(t->dtype));
			free(v);
			return 0;
		}
		if (!qref_ggml_is_block(t->dtype))
			qref_set(t, i, v[i]);
	}
	float *gf = qref_ggml_is_block(t->dtype) ? malloc((n ? n : 1) * sizeof *gf) : NULL;
	for (size_t i = 0; gf && i < n; i++)
		gf[i] = (float)v[i];
	free(v);
	if (qref_ggml_is_block(t->dtype) && !gf) {
		qc_cases_fail(it, ln, "out of memory");
		return 0;
	}
	return ggml_rows(it, ln, t, gf);
}
