# oneDNN adapter: $(BUILD)/plugins/libqcf_onednn.so from plugins/onednn/*.c, on Debian's
# libdnnl-dev (C API, dnnl.h). Skipped with one line when the package is not installed.
ONEDNN_HEADER := $(and $(call qc_header,dnnl.h),$(call qc_lib,dnnl))
ONEDNN_SRC    := $(wildcard plugins/onednn/*.c)
ONEDNN_OBJ    := $(ONEDNN_SRC:plugins/onednn/%.c=$(BUILD)/plugins/onednn/%.o)
ONEDNN_SO     := $(BUILD)/plugins/libqcf_onednn.so
ONEDNN_REPORTS := reports/examples/onednn
ONEDNN_PROFILES := litert-int8 onnx-qdq

PLUGIN_TARGETS += plugin-onednn
EXAMPLE_TARGETS += examples-onednn
.PHONY: plugin-onednn examples-onednn

ifeq ($(ONEDNN_HEADER),)
plugin-onednn:
	@echo "plugins: skipping onednn: Debian package libdnnl-dev$(DEB_SUFFIX) is not installed"
examples-onednn:
	@echo "plugins: skipping onednn: Debian package libdnnl-dev$(DEB_SUFFIX) is not installed"
else
plugin-onednn: $(ONEDNN_SO)

$(BUILD)/plugins/onednn/%.o: plugins/onednn/%.c harness/include/qconform/plugin.h
	@mkdir -p $(dir $@)
	$(CC) -Iharness/include $(PLUGIN_CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(ONEDNN_SO): $(ONEDNN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) $(PLUGIN_LDFLAGS) -o $@ $^ -ldnnl -lm

-include $(ONEDNN_OBJ:.o=.d)

# The committed example reports: each profile at oneDNN's default (best) ISA as P.json.gz and
# P.html, then at avx2 (no VNNI: the verdicts change there) as P.isa-avx2.* when this CPU has it.
ONEDNN_LOW_ISA ?= avx2
examples-onednn: $(QCONFORM) $(WORKER) $(ONEDNN_SO)
	@for p in $(ONEDNN_PROFILES); do \
	  $(call qc_example,$(ONEDNN_SO),$(ONEDNN_REPORTS),$$p,specs --profile $$p --extension all) || exit $$?; \
	  if grep -qw $(ONEDNN_LOW_ISA) /proc/cpuinfo; then \
	    $(call qc_example,$(ONEDNN_SO),$(ONEDNN_REPORTS),$$p.isa-$(ONEDNN_LOW_ISA),specs --profile $$p --extension all \
	      --plugin-option isa=$(ONEDNN_LOW_ISA)) || exit $$?; \
	  else echo "examples: onednn $$p isa=$(ONEDNN_LOW_ISA) skipped: this CPU has no $(ONEDNN_LOW_ISA)"; fi; \
	done
endif

# The same profiles on arm64 (oneDNN's aarch64 build) under qemu-user, into
# reports/examples/onednn-aarch64 (Makefile, qc_example_cross); isa= names x86 ISAs only.
ifeq ($(ARCH),)
EXAMPLE_CROSS_TARGETS += examples-onednn-$(CROSS_ARCH)
.PHONY: examples-onednn-$(CROSS_ARCH)
examples-onednn-$(CROSS_ARCH): $(QCONFORM)
	@$(MAKE) --no-print-directory cross
	@for p in $(ONEDNN_PROFILES); do \
	  $(call qc_example_cross,onednn,$(ONEDNN_REPORTS)-$(CROSS_ARCH),$$p,specs --profile $$p --extension all) || exit $$?; done
endif
