# Arm NN adapter: plugins/armnn/armnn.cc (C++17 over Arm NN's INetwork / IRuntime API) ->
# $(BUILD)/plugins/libqcf_armnn.so, built when Debian's libarmnn-dev is installed. The CpuRef
# backend it runs by default is the separate package libarmnn-cpuref-backend22 (a dynamic
# backend libarmnn loads at run time). ARMNN_CXX, ARMNN_CXXFLAGS and ARMNN_LIBS can be
# overridden. A cross build (make cross ARCH=aarch64) takes ARCH's g++ and libraries
# (libarmnn-dev:arm64 and its backends, with CpuAcc on the Arm Compute Library); nothing here
# is x86-only.
ARMNN_HDR      := $(and $(call qc_header,armnn/ArmNN.hpp),$(call qc_lib,armnn))
ARMNN_SRC      := plugins/armnn/armnn.cc
ARMNN_OBJ      := $(ARMNN_SRC:plugins/armnn/%.cc=$(BUILD)/plugins/armnn/%.o)
ARMNN_SO       := $(BUILD)/plugins/libqcf_armnn.so
ARMNN_CXX      ?= $(CROSS_COMPILE)g++
ARMNN_PKG_VERSION := $(firstword $(shell dpkg-query -W -f='$${Version} ' libarmnn-dev$(DEB_SUFFIX) 2>/dev/null))
ARMNN_CXXFLAGS ?= -std=c++17 $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off -fPIC \
                  -fvisibility=hidden -fvisibility-inlines-hidden $(SANFLAGS)
ARMNN_LIBS     ?= $(PLUGIN_LDFLAGS) -larmnn
ARMNN_EXAMPLES := reports/examples/armnn
ARMNN_PROFILES := litert-int8

.PHONY: plugin-armnn examples-armnn
PLUGIN_TARGETS += plugin-armnn
EXAMPLE_TARGETS += examples-armnn

ifneq ($(wildcard $(ARMNN_HDR)),)
plugin-armnn: $(ARMNN_SO)

$(BUILD)/plugins/armnn/%.o: plugins/armnn/%.cc harness/include/qconform/plugin.h
	@mkdir -p $(dir $@)
	$(ARMNN_CXX) -Iharness/include $(ARMNN_CXXFLAGS) \
	  -DQCF_ARMNN_VERSION='"1.1 (Arm NN $(ARMNN_PKG_VERSION), default backend CpuRef)"' -MMD -MP -c $< -o $@

$(ARMNN_SO): $(ARMNN_OBJ) plugins/armnn/exports.map
	@mkdir -p $(dir $@)
	$(ARMNN_CXX) -shared $(SANFLAGS) -Wl,--version-script=plugins/armnn/exports.map \
	  -o $@ $(ARMNN_OBJ) $(ARMNN_LIBS)

-include $(ARMNN_OBJ:.o=.d)

# The profile with every extension, on CpuRef (named, so the report's options show it).
examples-armnn: $(QCONFORM) $(WORKER) $(ARMNN_SO)
	@for p in $(ARMNN_PROFILES); do \
	  $(call qc_example,$(ARMNN_SO),$(ARMNN_EXAMPLES),$$p,specs --profile $$p --extension all \
	    --plugin-option backend=CpuRef) || exit $$?; done
else
plugin-armnn:
	@echo "plugins: skipping armnn: Debian package libarmnn-dev$(DEB_SUFFIX) is not installed"

examples-armnn:
	@echo "plugins: skipping armnn: Debian package libarmnn-dev$(DEB_SUFFIX) is not installed"
endif

# The profile on arm64 under qemu-user, into reports/examples/armnn-aarch64 (Makefile,
# qc_example_cross): CpuRef as P.*, then CpuAcc (the Arm Compute Library's NEON kernels,
# libarmnn-cpuacc-backend22, arm64 only) as P.backend-CpuAcc.*.
ifeq ($(ARCH),)
EXAMPLE_CROSS_TARGETS += examples-armnn-$(CROSS_ARCH)
.PHONY: examples-armnn-$(CROSS_ARCH)
examples-armnn-$(CROSS_ARCH): $(QCONFORM)
	@$(MAKE) --no-print-directory cross
	@for p in $(ARMNN_PROFILES); do \
	  $(call qc_example_cross,armnn,$(ARMNN_EXAMPLES)-$(CROSS_ARCH),$$p,specs --profile $$p --extension all \
	    --plugin-option backend=CpuRef) || exit $$?; \
	  $(call qc_example_cross,armnn,$(ARMNN_EXAMPLES)-$(CROSS_ARCH),$$p.backend-CpuAcc,specs --profile $$p \
	    --extension all --plugin-option backend=CpuAcc) || exit $$?; done
endif
