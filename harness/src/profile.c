#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qc_profile_free(qc_profile *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->name);
	free(p->description);
	for (int i = 0; i < p->n_ops; i++)
		free(p->ops[i]);
	free(p);
}

const qc_profile *qc_profile_find(qc_profile *const *profiles, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(profiles[i]->name, name) == 0)
			return profiles[i];
	return NULL;
}

const char *qc_yaml_scalar_at(yaml_document_t *doc, yaml_node_t *map, const char *key,
                              yaml_node_t **node)
{
	*node = NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((char *)k->data.scalar.value, key)) {
			*node = yaml_document_get_node(doc, p->value);
			return (*node)->type == YAML_SCALAR_NODE
			               ? (char *)(*node)->data.scalar.value
			               : NULL;
		}
	}
	return NULL;
}

void qc_yaml_check_keys(yaml_document_t *doc, yaml_node_t *map, const char *const *keys,
                        const char *what, const char *list, const char *path, qc_diag *diag)
{
	for (yaml_node_pair_t *kp = map->data.mapping.pairs.start; kp < map->data.mapping.pairs.top;
	     kp++) {
		yaml_node_t *k = yaml_document_get_node(doc, kp->key);
		const char *ks = k->type == YAML_SCALAR_NODE ? (char *)k->data.scalar.value : "";
		int known = 0;
		for (const char *const *a = keys; *a; a++)
			known |= !strcmp(*a, ks);
		if (!known)
			qc_diag_error(diag, path, k, "unknown key '%s' in %s (%s)", ks, what, list);
	}
}

int qc_yaml_load(const char *path, const char *what, yaml_document_t *doc, qc_diag *diag)
{
	return qc_yaml_load_file(path, what, doc, diag);
}

qc_profile *qc_profile_load(const char *path, qc_diag *diag)
{
	yaml_document_t doc;
	if (!qc_yaml_load(path, "profile", &doc, diag))
		return NULL;

	int before = diag ? diag->errors : 0;
	qc_profile *p = calloc(1, sizeof *p);
	p->path = strdup(path);
	yaml_node_t *root = yaml_document_get_root_node(&doc), *n;
	if (!root || root->type != YAML_MAPPING_NODE) {
		qc_diag_error(diag, path, root, "a profile must be a mapping");
		goto done;
	}
	static const char *const keys[] = {"qconform_profile", "name",      "description",
	                                   "required_ops",     "min_cases", NULL};
	qc_yaml_check_keys(&doc, root, keys, "a profile",
	                   "qconform_profile, name, description, required_ops, min_cases", path,
	                   diag);
	const char *v = qc_yaml_scalar_at(&doc, root, "qconform_profile", &n);
	int64_t fmt;
	if (!v || !qc_parse_int(v, &fmt) || fmt != QC_PROFILE_FORMAT)
		qc_diag_error(diag, path, n ? n : root,
		              "missing or unsupported 'qconform_profile: %d'", QC_PROFILE_FORMAT);
	if (!(v = qc_yaml_scalar_at(&doc, root, "name", &n)) || !*v)
		qc_diag_error(diag, path, n ? n : root, "missing 'name'");
	else
		p->name = strdup(v);
	if ((v = qc_yaml_scalar_at(&doc, root, "description", &n)))
		p->description = strdup(v);
	int64_t mc;
	if (!(v = qc_yaml_scalar_at(&doc, root, "min_cases", &n)) || !qc_parse_int(v, &mc) ||
	    mc < 1)
		qc_diag_error(diag, path, n ? n : root, "'min_cases' must be an integer >= 1");
	else
		p->min_cases = (uint64_t)mc;
	qc_yaml_scalar_at(&doc, root, "required_ops", &n);
	if (!n || n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top) {
		qc_diag_error(diag, path, n ? n : root,
		              "'required_ops' must be a non-empty list of semantics/OP");
	} else {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			yaml_node_t *o = yaml_document_get_node(&doc, *it);
			const char *os =
			        o->type == YAML_SCALAR_NODE ? (char *)o->data.scalar.value : NULL;
			if (!os || !strchr(os, '/'))
				qc_diag_error(diag, path, o,
				              "a required op is written semantics/OP");
			else if (p->n_ops == QC_PROFILE_MAX_OPS)
				qc_diag_error(diag, path, o, "too many required ops");
			else
				p->ops[p->n_ops++] = strdup(os);
		}
	}
done:
	yaml_document_delete(&doc);
	if (diag && diag->errors > before) {
		qc_profile_free(p);
		return NULL;
	}
	return p;
}
