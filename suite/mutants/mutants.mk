# Mutation score of the specs (suite/mutants/README.md). Included by the top
# Makefile. Each suite/mutants/NN-name.mut is the reference with one bug:
# mutate copies the one source file it names with the substitution applied,
# the copy is compiled with the reference's flags and linked, in place of the
# original object, with reference/plugin.o and every other reference object
# into $(BUILD)/mutants/NN-name/libmutant.so. `make mutation` runs the specs
# against each (2 at a time), prints one line per mutant and the score, and
# fails below the committed floor (suite/mutants/floor) or when the control
# mutant (suite/mutants/control/noop.mut, no change in behaviour, not scored)
# does not survive.

MUT_DIR      := suite/mutants
MUT_OUT      := $(BUILD)/mutants
MUT_TOOL     := $(MUT_OUT)/mutate
MUT_DEFS     := $(sort $(wildcard $(MUT_DIR)/*.mut))
MUT_CONTROL  := $(MUT_DIR)/control/noop.mut
MUT_NAMES    := $(MUT_DEFS:$(MUT_DIR)/%.mut=%)
MUT_SO       := $(MUT_NAMES:%=$(MUT_OUT)/%/libmutant.so) $(MUT_OUT)/control/noop/libmutant.so
MUT_JOBS     ?= 2

.PHONY: mutation mutation-check

# the tool is small; `all` builds it so that the suite can check every definition
all: $(MUT_TOOL)

$(MUT_TOOL): $(MUT_DIR)/mutate.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)

# any reference source may be the one a definition names
$(MUT_OUT)/%/mutant.c: $(MUT_DIR)/%.mut $(MUT_TOOL) $(REF_SRC)
	@mkdir -p $(dir $@)
	$(MUT_TOOL) $< $@

$(MUT_OUT)/%/mutant.o: $(MUT_OUT)/%/mutant.c
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# every reference object but the mutated file's own, then the mutated one
$(MUT_OUT)/%/libmutant.so: $(MUT_OUT)/%/mutant.o $(BUILD)/reference/plugin.o $(REF_OBJ)
	@src=$$($(MUT_TOOL) --field file $(MUT_DIR)/$*.mut) || exit 2; \
	  orig=$(BUILD)/$${src%.c}.o; objs=; found=0; \
	  for o in $(REF_OBJ); do \
	    if [ "$$o" = "$$orig" ]; then found=1; else objs="$$objs $$o"; fi; done; \
	  [ $$found = 1 ] || { echo "$(MUT_DIR)/$*.mut: $$src is not a reference object" >&2; exit 2; }; \
	  echo "$(CC) -shared -o $@ (reference objects without $$orig) $<"; \
	  $(CC) -shared $(LDFLAGS) -o $@ $(BUILD)/reference/plugin.o $$objs $< -lm

mutation-check: $(MUT_TOOL)
	$(MUT_TOOL) --check $(MUT_DEFS) $(MUT_CONTROL)

mutation: $(QCONFORM) $(WORKER) $(MUT_TOOL) $(MUT_SO)
	@sh $(MUT_DIR)/score.sh $(QCONFORM) $(MUT_TOOL) $(MUT_OUT) $(MUT_DIR)/floor $(MUT_JOBS) \
	  $(MUT_CONTROL) $(MUT_DEFS)
