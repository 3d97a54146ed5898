# Which refusals of the reference the specs exercise (suite/refusals/refusals.c). Included
# by the top Makefile. `make refusals` builds the reference plugin with gcc --coverage in
# $(BUILD)/cov (at -O0, so that every refusal keeps a line of its own), runs the specs with
# negative cases against it, runs gcov over the reference's sources and lists every refusal site with its
# execution count in $(BUILD)/cov/refusals.txt. It fails when a site that no case reached is
# neither in suite/refusals/refusals.allow (sites no spec can reach, each with its reason) nor
# in suite/refusals/refusals.pending (rules still owed a negative case), when a listed site is
# reached after all, or when an entry names no site. suite/test_refusals.c
# runs it in `make test` (the unsanitized pass only).

REFUSALS_DIR   := suite/refusals
REFUSALS_TOOL  := $(BUILD)/refusals/refusals
REFUSALS_ALLOW := $(REFUSALS_DIR)/refusals.allow
REFUSALS_OWED  := $(REFUSALS_DIR)/refusals.pending
COV_OUT        := $(BUILD)/cov
COV_OBJ        := $(REF_SRC:%.c=$(COV_OUT)/%.o)
COV_SO         := $(COV_OUT)/libqconform_reference_cov.so
COV_CFLAGS      = $(filter-out $(OPT) $(SANFLAGS),$(CFLAGS)) -O0 --coverage
# Only a negative case can reach a refusal (the reference refusing a case the spec calls valid
# is an ERROR of the run), and only a spec that has the word `expect` can have one.
COV_SPECS       = $(shell grep -rlw --include='*.yaml' --exclude-dir=profiles expect specs)

.PHONY: refusals

# the tool is small; `all` builds it so that the suite can test it on its own fixtures
all: $(REFUSALS_TOOL)

$(REFUSALS_TOOL): $(REFUSALS_DIR)/refusals.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)

$(COV_OUT)/reference/%.o: reference/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(COV_CFLAGS) -MMD -MP -c $< -o $@

# plugin.c's entry renamed: the shim's entry wraps it (its destroy() writes the counts)
$(COV_OUT)/plugin.o: reference/plugin.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out $(SANFLAGS),$(CFLAGS)) \
	  -Dqconform_plugin_negotiate=qref_cov_negotiate -MMD -MP -c $< -o $@

$(COV_OUT)/cov_shim.o: $(REFUSALS_DIR)/cov_shim.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out $(SANFLAGS),$(CFLAGS)) -MMD -MP -c $< -o $@

$(COV_SO): $(COV_OUT)/cov_shim.o $(COV_OUT)/plugin.o $(COV_OBJ)
	$(CC) -shared --coverage -o $@ $^ -lm

# the counts of one run: old .gcda files are removed first; the workers write theirs when
# they close, into the one directory the sandbox leaves writable
refusals: $(QCONFORM) $(WORKER) $(COV_SO) $(REFUSALS_TOOL)
	@rm -f $(COV_OUT)/reference/*.gcda $(COV_OUT)/gcov.txt $(COV_OUT)/refusals.txt
	@$(QCONFORM) run $(COV_SPECS) --plugin $(COV_SO) --jobs 2 --quiet \
	  --sandbox-allow $(abspath $(COV_OUT)/reference) --json $(COV_OUT)/run.json \
	  >$(COV_OUT)/run.txt 2>&1 || { cat $(COV_OUT)/run.txt; \
	  echo "refusals: the specs do not pass against the coverage build" >&2; exit 2; }
	@gcov -t -o $(COV_OUT)/reference $(REF_SRC) >$(COV_OUT)/gcov.txt 2>$(COV_OUT)/gcov.err || \
	  { cat $(COV_OUT)/gcov.err >&2; exit 2; }
	@$(REFUSALS_TOOL) check --allow $(REFUSALS_ALLOW) --pending $(REFUSALS_OWED) --gcov $(COV_OUT)/gcov.txt $(REF_SRC) \
	  >$(COV_OUT)/refusals.txt; st=$$?; tail -n 1 $(COV_OUT)/refusals.txt; \
	  echo "refusals: every site with its count: $(COV_OUT)/refusals.txt"; exit $$st
