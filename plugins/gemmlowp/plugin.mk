# gemmlowp adapter (plugins/gemmlowp): LiteRT FULLY_CONNECTED on Debian's header-only
# libgemmlowp-dev. GEMMLOWP_ISA picks gemmlowp's kernel at build time: sse4.1 (default, its
# SSE4.1 12x4 kernel and SSE output stages), avx2 (its AVX2 24x8 kernel, which it compiles only
# with GEMMLOWP_ENABLE_AVX2) or portable (its reference kernel and scalar output stages).
# A cross build for aarch64 (make cross ARCH=aarch64) takes neon: gemmlowp's NEON kernels and
# output stages, which it picks by itself on aarch64 (no flag; -msse4.1 is x86's).
GEMMLOWP_HDR      := /usr/include/gemmlowp/public/gemmlowp.h
GEMMLOWP_SRC      := plugins/gemmlowp/qcf_gemmlowp.cc
GEMMLOWP_OBJ      := $(BUILD)/plugins/gemmlowp/qcf_gemmlowp.o
GEMMLOWP_SO       := $(BUILD)/plugins/libqcf_gemmlowp.so
GEMMLOWP_ISA      ?= $(if $(filter aarch64,$(ARCH)),neon,sse4.1)
GEMMLOWP_ISAFLAGS := $(if $(filter sse4.1,$(GEMMLOWP_ISA)),-msse4.1,$(if $(filter avx2,$(GEMMLOWP_ISA)),-mavx2 -DGEMMLOWP_ENABLE_AVX2,))
ifneq ($(filter aarch64,$(ARCH)),)
ifneq ($(GEMMLOWP_ISA),neon)
$(error GEMMLOWP_ISA=$(GEMMLOWP_ISA): an aarch64 build takes neon (gemmlowp's NEON path, no flags))
endif
endif
GEMMLOWP_VERSION   = $(shell dpkg-query -W -f='$${Version}' libgemmlowp-dev 2>/dev/null)
GEMMLOWP_CXX      ?= $(CROSS_COMPILE)g++
GEMMLOWP_CXXFLAGS := -std=c++17 $(OPT) -g -Wall -Wextra -Werror -ffp-contract=off -fPIC \
                     -fvisibility=hidden -fvisibility-inlines-hidden $(SANFLAGS) $(GEMMLOWP_ISAFLAGS)
GEMMLOWP_PROFILES := litert-int8
GEMMLOWP_OUT      := reports/examples/gemmlowp

GEMMLOWP_ISAFILE  := $(BUILD)/plugins/gemmlowp/isa

PLUGIN_TARGETS  += plugin-gemmlowp
EXAMPLE_TARGETS += examples-gemmlowp
.PHONY: plugin-gemmlowp examples-gemmlowp gemmlowp-isa-check

ifneq ($(wildcard $(GEMMLOWP_HDR)),)
plugin-gemmlowp: $(GEMMLOWP_SO)

# The ISA the object was built for, rewritten only when it changes, so that switching
# GEMMLOWP_ISA rebuilds the plugin and an unchanged one does not.
$(GEMMLOWP_ISAFILE): gemmlowp-isa-check
	@mkdir -p $(dir $@)
	@echo '$(GEMMLOWP_ISA)' | cmp -s - $@ || echo '$(GEMMLOWP_ISA)' > $@

$(GEMMLOWP_OBJ): $(GEMMLOWP_SRC) plugins/gemmlowp/plugin.mk $(GEMMLOWP_ISAFILE)
	@mkdir -p $(dir $@)
	$(GEMMLOWP_CXX) -Iharness/include $(GEMMLOWP_CXXFLAGS) \
	  -DQCF_GEMMLOWP_VERSION='"$(GEMMLOWP_VERSION) $(GEMMLOWP_ISA)"' -MMD -MP -c $< -o $@

$(GEMMLOWP_SO): $(GEMMLOWP_OBJ)
	@mkdir -p $(dir $@)
	$(GEMMLOWP_CXX) -shared $(LDFLAGS) -o $@ $^ -lpthread

-include $(GEMMLOWP_OBJ:.o=.d)

# Each profile, then the uint8 spec (in no profile); the profile runs do not conform: the
# adapter runs FULLY_CONNECTED only.
examples-gemmlowp: $(QCONFORM) $(WORKER) $(GEMMLOWP_SO)
	@for p in $(GEMMLOWP_PROFILES); do \
	  $(call qc_example,$(GEMMLOWP_SO),$(GEMMLOWP_OUT),$$p,specs --profile $$p --extension all) || exit $$?; done
	@$(call qc_example,$(GEMMLOWP_SO),$(GEMMLOWP_OUT),fully_connected_uint8,specs/litert/fully_connected_uint8.yaml)
else
plugin-gemmlowp:
	@echo "plugins: skipping gemmlowp: Debian package libgemmlowp-dev is not installed"

examples-gemmlowp:
	@echo "plugins: skipping gemmlowp: Debian package libgemmlowp-dev is not installed"
endif

# The same runs on arm64 (gemmlowp's NEON kernels and output stages) under qemu-user, into
# reports/examples/gemmlowp-aarch64 (Makefile, qc_example_cross).
ifeq ($(ARCH),)
EXAMPLE_CROSS_TARGETS += examples-gemmlowp-$(CROSS_ARCH)
.PHONY: examples-gemmlowp-$(CROSS_ARCH)
examples-gemmlowp-$(CROSS_ARCH): $(QCONFORM)
	@$(MAKE) --no-print-directory cross
	@for p in $(GEMMLOWP_PROFILES); do \
	  $(call qc_example_cross,gemmlowp,$(GEMMLOWP_OUT)-$(CROSS_ARCH),$$p,specs --profile $$p --extension all) || exit $$?; done
	@$(call qc_example_cross,gemmlowp,$(GEMMLOWP_OUT)-$(CROSS_ARCH),fully_connected_uint8,specs/litert/fully_connected_uint8.yaml)
endif
