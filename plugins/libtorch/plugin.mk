# libtorch adapter: plugins/libtorch/libtorch.cc (C++17 over ATen) ->
# $(BUILD)/plugins/libqcf_libtorch.so, built when Debian's libtorch-dev is installed.
LIBTORCH_HDR     := $(and $(call qc_header,ATen/ATen.h),$(call qc_lib,torch_cpu))
LIBTORCH_SRC     := plugins/libtorch/libtorch.cc
LIBTORCH_OBJ     := $(LIBTORCH_SRC:plugins/libtorch/%.cc=$(BUILD)/plugins/libtorch/%.o)
LIBTORCH_SO      := $(BUILD)/plugins/libqcf_libtorch.so
LIBTORCH_CXX     ?= $(CROSS_COMPILE)g++
LIBTORCH_VERSION := $(call qc_deb_version,libtorch-dev)
# torch's headers are in /usr/include, a system directory, so their own warnings stay quiet
# under -Wextra -Werror; exports.map keeps every symbol but qconform_plugin_negotiate local
LIBTORCH_CXXFLAGS := -std=c++17 $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off -fPIC \
                     -fvisibility=hidden -fvisibility-inlines-hidden $(SANFLAGS) \
                     -Iharness/include $(PLUGIN_CPPFLAGS) \
                     -DLIBTORCH_VERSION='"$(LIBTORCH_VERSION)"'
LIBTORCH_LIBS    := -ltorch -ltorch_cpu -lc10
LIBTORCH_EXAMPLES := reports/examples/libtorch
# libtorch loads in every worker (0.6 s idle, more on a busy machine): two workers
LIBTORCH_JOBS    ?= 2

.PHONY: plugin-libtorch examples-libtorch
PLUGIN_TARGETS += plugin-libtorch
EXAMPLE_TARGETS += examples-libtorch

ifneq ($(LIBTORCH_HDR),)
plugin-libtorch: $(LIBTORCH_SO)

$(BUILD)/plugins/libtorch/%.o: plugins/libtorch/%.cc harness/include/qconform/plugin.h
	@mkdir -p $(dir $@)
	$(LIBTORCH_CXX) $(LIBTORCH_CXXFLAGS) -MMD -MP -c $< -o $@

$(LIBTORCH_SO): $(LIBTORCH_OBJ) plugins/libtorch/exports.map
	@mkdir -p $(dir $@)
	$(LIBTORCH_CXX) -shared $(SANFLAGS) $(PLUGIN_LDFLAGS) -Wl,--version-script=plugins/libtorch/exports.map \
	  -o $@ $(LIBTORCH_OBJ) $(LIBTORCH_LIBS)


examples-libtorch: $(QCONFORM) $(WORKER) $(LIBTORCH_SO)
	@$(call qc_example,$(LIBTORCH_SO),$(LIBTORCH_EXAMPLES),torch-fakequant,specs \
	  --profile torch-fakequant --extension all --jobs $(LIBTORCH_JOBS))
	@$(call qc_example,$(LIBTORCH_SO),$(LIBTORCH_EXAMPLES),quantized_linear,\
	  specs/torch/quantized_linear.yaml --jobs $(LIBTORCH_JOBS))
else
plugin-libtorch:
	@echo "plugins: skipping libtorch: Debian package libtorch-dev$(DEB_SUFFIX) is not installed"

examples-libtorch:
	@echo "plugins: skipping libtorch: Debian package libtorch-dev$(DEB_SUFFIX) is not installed"
endif

# The same runs on arm64 under qemu-user, into reports/examples/libtorch-aarch64
# (Makefile, qc_example_cross). Debian's arm64 libtorch has no QNNPACK: engine=onednn.
LIBTORCH_CROSS_ENGINE ?= onednn
ifeq ($(ARCH),)
EXAMPLE_CROSS_TARGETS += examples-libtorch-$(CROSS_ARCH)
.PHONY: examples-libtorch-$(CROSS_ARCH)
examples-libtorch-$(CROSS_ARCH): $(QCONFORM)
	@$(MAKE) --no-print-directory cross
	@$(call qc_example_cross,libtorch,$(LIBTORCH_EXAMPLES)-$(CROSS_ARCH),torch-fakequant,specs \
	  --profile torch-fakequant --extension all --jobs $(LIBTORCH_JOBS) --plugin-option engine=$(LIBTORCH_CROSS_ENGINE))
	@$(call qc_example_cross,libtorch,$(LIBTORCH_EXAMPLES)-$(CROSS_ARCH),quantized_linear,\
	  specs/torch/quantized_linear.yaml --jobs $(LIBTORCH_JOBS) --plugin-option engine=$(LIBTORCH_CROSS_ENGINE))
endif
