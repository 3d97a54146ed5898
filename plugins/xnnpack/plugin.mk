# XNNPACK adapter (Debian libxnnpack-dev; its xnnpack.h includes pthreadpool.h from
# libpthreadpool-dev, which the -dev package does not pull in).
XNNPACK_SO   := $(BUILD)/plugins/libqcf_xnnpack.so
XNNPACK_SRC  := $(wildcard plugins/xnnpack/*.c)
XNNPACK_OBJ  := $(XNNPACK_SRC:plugins/xnnpack/%.c=$(BUILD)/plugins/xnnpack/%.o)
# (for the build's target: a cross build looks for the arm64 headers and libXNNPACK.so)
XNNPACK_HAVE := $(and $(call qc_header,xnnpack.h),$(call qc_header,pthreadpool.h),$(call qc_lib,XNNPACK))
XNNPACK_MISSING := $(if $(and $(call qc_header,xnnpack.h),$(call qc_lib,XNNPACK)),libpthreadpool-dev,libxnnpack-dev)$(DEB_SUFFIX)
XNNPACK_PROFILES := litert-int8
XNNPACK_EXAMPLES := reports/examples/xnnpack

.PHONY: plugin-xnnpack examples-xnnpack
PLUGIN_TARGETS += plugin-xnnpack
EXAMPLE_TARGETS += examples-xnnpack

ifneq ($(XNNPACK_HAVE),)
plugin-xnnpack: $(XNNPACK_SO)

$(BUILD)/plugins/xnnpack/%.o: plugins/xnnpack/%.c harness/include/qconform/plugin.h
	@mkdir -p $(dir $@)
	$(CC) -Iharness/include $(PLUGIN_CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(XNNPACK_SO): $(XNNPACK_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) $(PLUGIN_LDFLAGS) -o $@ $^ -lXNNPACK -lm

-include $(XNNPACK_OBJ:.o=.d)

examples-xnnpack: $(QCONFORM) $(WORKER) $(XNNPACK_SO)
	@for p in $(XNNPACK_PROFILES); do \
	  $(call qc_example,$(XNNPACK_SO),$(XNNPACK_EXAMPLES),$$p,specs --profile $$p --extension all) || exit $$?; done
else
plugin-xnnpack:
	@echo "plugins: skipping xnnpack: Debian package $(XNNPACK_MISSING) is not installed"

examples-xnnpack: plugin-xnnpack
endif

# The same runs on arm64 (XNNPACK's NEON kernels) under qemu-user, into
# reports/examples/xnnpack-aarch64 (Makefile, qc_example_cross).
ifeq ($(ARCH),)
EXAMPLE_CROSS_TARGETS += examples-xnnpack-$(CROSS_ARCH)
.PHONY: examples-xnnpack-$(CROSS_ARCH)
examples-xnnpack-$(CROSS_ARCH): $(QCONFORM)
	@$(MAKE) --no-print-directory cross
	@for p in $(XNNPACK_PROFILES); do \
	  $(call qc_example_cross,xnnpack,$(XNNPACK_EXAMPLES)-$(CROSS_ARCH),$$p,specs --profile $$p --extension all) || exit $$?; done
endif
