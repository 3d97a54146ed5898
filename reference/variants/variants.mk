# The catalogue of variants of the reference's arithmetic (reference/variants/README.md).
# Included by the top Makefile. Each reference/variants/NN-name.var is the reference with one
# named change: `variant` copies the one source file it names with the change applied, the
# copy is compiled with the reference's flags and linked, in place of the original object,
# with reference/plugin.o and every other reference object into
# $(BUILD)/variants/NN-name.so, a plugin. The diagnosis runs them as hypotheses (which rule
# explains a kernel's outputs); `make mutation` runs the specs against them (suite/mutants/).
# $(VAR_TABLE) is the catalogue as C (id, description, as, ops), linked into qconform.

VAR_DIR   := reference/variants
VAR_OUT   := $(BUILD)/variants
VAR_TOOL  := $(VAR_OUT)/variant
VAR_DEFS  := $(sort $(wildcard $(VAR_DIR)/*.var))
VAR_NAMES := $(VAR_DEFS:$(VAR_DIR)/%.var=%)
VAR_SO    := $(VAR_NAMES:%=$(VAR_OUT)/%.so)
VAR_TABLE := $(PB_GEN)/variants_table.c

.PHONY: variants variants-check

variants: $(VAR_SO)

$(VAR_TOOL): $(VAR_DIR)/variant.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)

# the ops a variant reaches are derived from every reference source
$(VAR_TABLE): $(VAR_DEFS) $(VAR_TOOL) $(REF_SRC) reference/plugin.c
	@mkdir -p $(dir $@)
	$(VAR_TOOL) --table $(VAR_DEFS) > $@.tmp && mv $@.tmp $@

$(PB_GEN)/variants_table.o: $(VAR_TABLE)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# any reference source may be the one a definition names
$(VAR_OUT)/%/changed.c: $(VAR_DIR)/%.var $(VAR_TOOL) $(REF_SRC)
	@mkdir -p $(dir $@)
	$(VAR_TOOL) $< $@

# the copy is not beside the reference's headers, which its includes name bare
$(VAR_OUT)/%/changed.o: $(VAR_OUT)/%/changed.c
	$(CC) $(CPPFLAGS) -iquote reference $(PKG_CFLAGS) $(CFLAGS) -g0 -MMD -MP -c $< -o $@

# $(call qc_variant_link,DEF,OUT.so,CHANGED.o): every reference object but the changed file's
# own, then the changed one. -z defs: a symbol no object defines (a family file the link
# missed) fails the link, not the plugin's load in the middle of a diagnosis or `make mutation`
# (the sanitizer build leaves it out: its runtime's symbols come from the executable). No debug
# information (their changed file is compiled without it too): a copy of the reference's per
# variant made the installed variants 260 MB.
VAR_LDEFS := $(if $(SAN),,-Wl,-z,defs)
qc_variant_link = src=$$($(VAR_TOOL) --field file $(1)) || exit 2; \
  orig=$(BUILD)/$${src%.c}.o; objs=; found=0; \
  for o in $(REF_OBJ); do \
    if [ "$$o" = "$$orig" ]; then found=1; else objs="$$objs $$o"; fi; done; \
  [ $$found = 1 ] || { echo "$(1): $$src is not a reference object" >&2; exit 2; }; \
  echo "$(CC) -shared -o $(2) (reference objects without $$orig) $(3)"; \
  $(CC) -shared $(LDFLAGS) $(VAR_LDEFS) -Wl,--strip-debug -o $(2) $(BUILD)/reference/plugin.o $$objs $(3) -lm

$(VAR_OUT)/%.so: $(VAR_OUT)/%/changed.o $(BUILD)/reference/plugin.o $(REF_OBJ)
	@$(call qc_variant_link,$(VAR_DIR)/$*.var,$@,$<)

variants-check: $(VAR_TOOL)
	$(VAR_TOOL) --check $(VAR_DEFS)
