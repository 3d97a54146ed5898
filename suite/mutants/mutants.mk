# Mutation score of the specs (suite/mutants/README.md). Included by the top Makefile after
# reference/variants/variants.mk: the mutants are the catalogue's variants (each the reference
# with one named bug, built into $(BUILD)/variants/NN-name.so), and the control mutant
# (suite/mutants/control/noop.var, no change in behaviour, not scored) is built the same way
# into $(BUILD)/variants/control/noop.so. `make mutation` runs the specs against each (2 at a
# time), prints one line per mutant and the score, and fails below the committed floor
# (suite/mutants/floor) or when the control does not survive.

MUT_DIR     := suite/mutants
MUT_CONTROL := $(MUT_DIR)/control/noop.var
MUT_JOBS    ?= 2

.PHONY: mutation mutation-check

$(VAR_OUT)/control/noop/changed.c: $(MUT_CONTROL) $(VAR_TOOL) $(REF_SRC)
	@mkdir -p $(dir $@)
	$(VAR_TOOL) $< $@

$(VAR_OUT)/control/noop.so: $(VAR_OUT)/control/noop/changed.o $(BUILD)/reference/plugin.o $(REF_OBJ)
	@$(call qc_variant_link,$(MUT_CONTROL),$@,$<)

mutation-check: $(VAR_TOOL)
	$(VAR_TOOL) --check $(VAR_DEFS) $(MUT_CONTROL)

mutation: $(QCONFORM) $(WORKER) $(VAR_TOOL) $(VAR_SO) $(VAR_OUT)/control/noop.so
	@sh $(MUT_DIR)/score.sh $(QCONFORM) $(VAR_TOOL) $(VAR_OUT) $(MUT_DIR)/floor $(MUT_JOBS) \
	  $(MUT_CONTROL) $(VAR_DEFS)
