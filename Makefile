# qconform: plain Makefile. `make` builds the harness, the reference plugin
# and the stub plugins; `make test` runs the project's own tests, twice: once
# as built, once under AddressSanitizer and UndefinedBehaviorSanitizer.

CC      ?= cc
BUILD   ?= build
SAN     ?=
PKGS    := yaml-0.1 lua5.4 cunit jansson libseccomp libcap-ng nettle libprotobuf-c

# Cross builds: `make cross ARCH=aarch64` builds the worker, the reference plugin and the
# adapters whose ARCH libraries are there into $(BUILD)/ARCH/ (see "Cross builds" below). In
# that build (ARCH set, by `make cross`) CC is ARCH-linux-gnu-gcc, the adapters' C++
# compiler ARCH-linux-gnu-g++ ($(CROSS_COMPILE)g++ in their plugin.mk), and pkg-config reads
# ARCH's .pc files. CROSS_SYSROOT holds the ARCH packages that cannot be installed beside the
# amd64 ones (harness/cross/sysroot.sh, unpacked by `make deps-cross`); the adapters' headers and
# libraries are looked for there first, then in the system (qc_header, qc_lib).
ARCH          ?=
CROSS_ARCH    := $(or $(ARCH),aarch64)
CROSS_DEB      = $(if $(filter aarch64,$(CROSS_ARCH)),arm64,$(error ARCH=$(CROSS_ARCH) is not known; ARCH=aarch64 is))
CROSS_SYSROOT ?= /opt/qconform/sysroot-$(CROSS_ARCH)
ifneq ($(ARCH),)
CROSS_COMPILE := $(ARCH)-linux-gnu-
CC            := $(CROSS_COMPILE)gcc
AR            := $(CROSS_COMPILE)ar
PKGS          := libseccomp libcap-ng
export PKG_CONFIG_LIBDIR := /usr/lib/$(ARCH)-linux-gnu/pkgconfig:/usr/share/pkgconfig
TARGET_LIBDIRS := $(CROSS_SYSROOT)/usr/lib/$(ARCH)-linux-gnu $(CROSS_SYSROOT)/lib/$(ARCH)-linux-gnu \
                  /usr/lib/$(ARCH)-linux-gnu
PLUGIN_CPPFLAGS := $(if $(wildcard $(CROSS_SYSROOT)/usr/include),-isystem $(CROSS_SYSROOT)/usr/include)
PLUGIN_LDFLAGS  := $(foreach d,$(wildcard $(TARGET_LIBDIRS)),-L$(d) -Wl,-rpath-link,$(d))
DEB_SUFFIX      := :$(CROSS_DEB)
else
CROSS_COMPILE :=
TARGET_LIBDIRS := /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null) /usr/lib /lib
PLUGIN_CPPFLAGS :=
PLUGIN_LDFLAGS  :=
DEB_SUFFIX      :=
endif
ifneq ($(ARCH),)
ifneq ($(filter-out cross deps-cross,$(MAKECMDGOALS)),)
ifeq ($(filter %/$(ARCH),$(BUILD)),)
$(error ARCH=$(ARCH) goes with `make cross ARCH=$(ARCH)` (into $(BUILD)/$(ARCH)), not with $(MAKECMDGOALS))
endif
endif
endif
# $(call qc_header,H): H's path when the build's target has it (/usr/include/H natively).
# $(call qc_lib,L): libL.so's path in the target's library directories.
# $(call qc_deb_version,P): the version of Debian package P for the target (installed, or
# unpacked into CROSS_SYSROOT).
qc_header = $(firstword $(wildcard $(if $(ARCH),$(CROSS_SYSROOT)/usr/include/$(1)) /usr/include/$(1)))
qc_lib    = $(firstword $(wildcard $(TARGET_LIBDIRS:%=%/lib$(1).so)))
qc_deb_version = $(or $(shell dpkg-query -W -f='$${Version}' $(1)$(DEB_SUFFIX) 2>/dev/null),\
  $(if $(ARCH),$(shell awk '$$1 == "$(1)" { print $$2 }' $(CROSS_SYSROOT)/PACKAGES 2>/dev/null)))
DEB_PKGS_RUN := libyaml-dev liblua5.4-dev libcunit1-dev libjansson-dev libseccomp-dev libcap-ng-dev \
            nettle-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev zlib1g-dev pkg-config
DEB_PKGS := $(DEB_PKGS_RUN) \
            clang-format clang libclang-rt-14-dev libonnx-testdata \
            python3-jsonschema python3-fastjsonschema libxml2-utils parallel python3-numpy chromium g++ \
            libxnnpack-dev libpthreadpool-dev libdnnl-dev libgemmlowp-dev libtorch-dev \
            libarmnn-dev libarmnn-cpuref-backend22

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT      := -O1
else ifeq ($(SAN),fuzz)
# `make fuzz`: clang's coverage for libFuzzer on every object, plus ASan and UBSan
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT      := -O1
else
SANFLAGS :=
OPT      := -O2
endif

# snprintf truncation is deliberate everywhere here; gcc warns about it, clang has no such flag
WNO_TRUNC := $(shell $(CC) -Werror -Wformat-truncation -E -x c /dev/null >/dev/null 2>&1 && echo -Wno-format-truncation)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS  := -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Werror $(WNO_TRUNC) -ffp-contract=off -fPIC \
           -fvisibility=hidden $(SANFLAGS)
# The harness, one folder per stage of the pipeline (harness/src/README.md).
HARNESS_DIRS := base spec cases run judge report pipeline offline gate tools cmd
# The C of onnx.proto, generated (see ONNX_PROTO below), lives in $(PB_GEN).
PB_GEN   := $(BUILD)/gen
# Includes name their folder: "judge/compare.h" (the harness's stages, under harness/src),
# "reference/qref.h" and "harness/runner/qconform_case.h" (the other parts, from the top),
# "qconform/plugin.h" (the public header, as a plugin includes it) and the generated
# "onnx.pb-c.h".
CPPFLAGS := -Iharness/src -I. -Iharness/include -I$(PB_GEN)
LDFLAGS := $(SANFLAGS)
LDLIBS  := -lm -ldl -pthread

REF_SRC     := $(filter-out reference/plugin.c,$(wildcard reference/*.c))
REF_OBJ     := $(REF_SRC:%.c=$(BUILD)/%.o)
HARNESS_SRC := $(filter-out harness/src/cmd/main.c,$(wildcard $(HARNESS_DIRS:%=harness/src/%/*.c)))
HARNESS_OBJ := $(HARNESS_SRC:%.c=$(BUILD)/%.o) $(PB_GEN)/onnx.pb-c.o $(PB_GEN)/variants_table.o
STUB_SRC    := $(wildcard suite/stubs/*.c)
STUB_SO     := $(STUB_SRC:suite/stubs/%.c=$(BUILD)/stubs/libstub_%.so)
EXAMPLE_SO  := $(BUILD)/example/libexample.so $(BUILD)/abi1/libexample_abi1.so
TEST_SRC    := $(wildcard suite/*.c)
TEST_OBJ    := $(TEST_SRC:%.c=$(BUILD)/%.o)

QCONFORM  := $(BUILD)/qconform
WORKER    := $(BUILD)/qconform-worker
REF_SO    := $(BUILD)/libqconform_reference.so
REF_A     := $(BUILD)/libqconform_reference.a
HARNESS_A := $(BUILD)/libqconform_harness.a
TESTS     := $(BUILD)/qconform_tests

.SECONDARY:
.PHONY: all deps deps-run deps-cross cross check-deps run test test-unit test-san san-all test-quick bench bench-kernels bench-baseline clean \
        format format-check import-onnx import-ort ort-fresh ort-npm man install uninstall \
        plugins mutation examples fuzz runner

# The catalogue's variants (reference/variants/) are plugins the diagnosis runs; the sanitizer
# build leaves them out (its tests take the plain build's: SAN_ENV), and the adapters (the
# plain pass runs them: SAN_SKIP).
all: check-deps $(QCONFORM) $(WORKER) $(REF_SO) $(STUB_SO) $(EXAMPLE_SO) $(TESTS) \
     $(if $(SAN),,plugins variants)

# Adapters to real kernel libraries: each plugins/<name>/plugin.mk adds a target
# to PLUGIN_TARGETS that builds $(BUILD)/plugins/libqcf_<name>.so when the
# library's Debian package is installed and says why it skips when it is not.
# `make examples` reruns the committed reports in reports/examples/<name>/
# (EXAMPLE_TARGETS, one per adapter).
# $(call qc_example,PLUGIN,DIR,NAME,RUN ARGS): `qconform run RUN ARGS --plugin PLUGIN` into
# DIR/NAME.json.gz and DIR/NAME.html; exit 1 (the run does not conform) is a result, 2 stops make.
# Made in another build directory, the files still name build/ as a checkout's default does.
qc_example = mkdir -p $(2) && { $(QCONFORM) run $(4) --plugin $(1) --quiet --json $(2)/$(3).json \
  --html $(2)/$(3).html; st=$$?; [ $$st -le 1 ] || exit $$st; } && \
  $(if $(filter-out build,$(BUILD)),sed -i 's|$(BUILD)/|build/|g' $(2)/$(3).json $(2)/$(3).html &&) \
  gzip -9nf $(2)/$(3).json
# The arm64 example reports (reports/examples/<name>-aarch64/): the same runs with the adapter
# cross-built (make cross ARCH=aarch64, which each examples-<name>-aarch64 target runs first)
# and its worker under qemu-user through --remote. $(call qc_example_cross,NAME,DIR,RUN,ARGS)
# is qc_example with build/aarch64/plugins/libqcf_NAME.so, or one line saying why it skips.
CROSS_EX_BUILD  := $(BUILD)/$(CROSS_ARCH)
CROSS_EX_REMOTE := --remote '$(CROSS_EX_BUILD)/qconform-worker-qemu --stdio'
qc_example_cross = if [ -f $(CROSS_EX_BUILD)/plugins/libqcf_$(1).so ]; then \
  $(call qc_example,$(CROSS_EX_BUILD)/plugins/libqcf_$(1).so,$(2),$(3),$(4) $(CROSS_EX_REMOTE)); \
  else echo "examples: skipping $(1) on $(CROSS_ARCH): make cross built no libqcf_$(1).so"; fi
PLUGIN_TARGETS :=
EXAMPLE_TARGETS :=
EXAMPLE_CROSS_TARGETS :=
include $(sort $(wildcard plugins/*/plugin.mk))
plugins: $(PLUGIN_TARGETS)
examples: $(EXAMPLE_TARGETS)
.PHONY: examples-$(CROSS_ARCH)
examples-$(CROSS_ARCH): $(EXAMPLE_CROSS_TARGETS)

# The offline runner (harness/runner/qconform_runner.c, README "Offline devices") linked with
# the reference plugin, built as a vendor builds it with theirs: `make runner`, then
# `build/qconform_runner EXPORT_DIR`. Not part of `all`.
RUNNER := $(BUILD)/qconform_runner
$(RUNNER): harness/runner/qconform_runner.c harness/runner/qconform_case.h $(BUILD)/reference/plugin.o \
           $(REF_A)
	$(CC) -std=c99 -pedantic -Wall -Wextra -Werror $(OPT) $(SANFLAGS) -Iharness/include -Iharness/runner \
	  -o $@ $< $(BUILD)/reference/plugin.o $(REF_A) -lm
runner: $(RUNNER)

# The variants of the reference's arithmetic (reference/variants/): the diagnosis's hypotheses,
# and the mutants whose score `make mutation` prints (suite/mutants/).
include reference/variants/variants.mk
include harness/runner/boards/mps2/mps2.mk
-include suite/mutants/mutants.mk

# Refusal coverage of the specs (suite/refusals/): `make refusals`.
-include suite/refusals/refusals.mk

# Installs the Debian packages the build needs, when missing (needs root).
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# What `make run` needs: the build's own libraries.
deps-run:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(DEB_PKGS_RUN)"

check-deps:
	@pkg-config --exists $(PKGS) 2>/dev/null && command -v protoc-c >/dev/null && [ -f $(ONNX_PROTO) ] || { \
	  echo "missing build dependencies ($(PKGS), protoc-c, $(ONNX_PROTO)); run 'make deps' (Debian: $(DEB_PKGS))" >&2; \
	  exit 2; }

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# onnx.proto as C, for the ONNX importer (harness/src/tools/onnx_proto.h): protoc-c
# (protobuf-c-compiler) writes onnx.pb-c.c and onnx.pb-c.h into $(PB_GEN), compiled with the
# project's flags and linked with -lprotobuf-c. ONNX_PROTO is the one .proto libonnx-dev
# ships (`dpkg -L libonnx-dev`): onnx.proto, proto2, without ONNX_ML. model.onnx and the .pb
# files are a ModelProto and TensorProtos on protobuf's wire, where onnx.proto3 and
# onnx-ml.proto give every field the same number and type; onnx-ml.proto's one more kind of
# TypeProto (opaque_type) is nothing the importer reads, and protobuf-c keeps a field it does
# not know as an unknown field.
ONNX_PROTO ?= /usr/include/onnx/onnx.proto

$(PB_GEN)/onnx.pb-c.c $(PB_GEN)/onnx.pb-c.h &: $(ONNX_PROTO)
	@mkdir -p $(PB_GEN)
	protoc-c --c_out=$(PB_GEN) --proto_path=$(dir $(ONNX_PROTO)) $(ONNX_PROTO)

$(PB_GEN)/onnx.pb-c.o: $(PB_GEN)/onnx.pb-c.c
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# Before the first build no object knows it includes onnx.pb-c.h (-MMD says so afterwards).
$(HARNESS_SRC:%.c=$(BUILD)/%.o) $(TEST_OBJ) $(BUILD)/suite/fuzz/fuzz_onnx.o: | $(PB_GEN)/onnx.pb-c.h

# libseccomp's SCMP_A0_32() leaves the comparison's datum_b to zero initialization, which
# clang's -Wextra (`make fuzz` builds with clang) reports as a missing field initializer.
$(BUILD)/harness/src/run/sandbox.o: CFLAGS += -Wno-missing-field-initializers

$(REF_A): $(REF_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(HARNESS_A): $(HARNESS_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(REF_SO): $(BUILD)/reference/plugin.o $(REF_A)
	$(CC) -shared $(LDFLAGS) -o $@ $^ -lm

$(BUILD)/stubs/libstub_%.so: $(BUILD)/suite/stubs/%.o $(REF_A)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $^ -lm

# The example plugin (plugins/example/example.c), built as a vendor builds it: against the plugin
# header alone. Once against harness/include/qconform/plugin.h, once against the header as ABI
# version 1 shipped it (suite/abi1/README.md); the lowbit suite runs the two side by side.
$(BUILD)/example/example.o: plugins/example/example.c
	@mkdir -p $(dir $@)
	$(CC) -Iharness/include $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/abi1/example.o: plugins/example/example.c
	@mkdir -p $(dir $@)
	$(CC) -Isuite/abi1 $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/example/libexample.so: $(BUILD)/example/example.o
$(BUILD)/abi1/libexample_abi1.so: $(BUILD)/abi1/example.o
$(EXAMPLE_SO):
	$(CC) -shared $(LDFLAGS) -o $@ $^

$(QCONFORM): $(BUILD)/harness/src/cmd/main.o $(HARNESS_A) $(REF_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(TESTS): $(TEST_OBJ) $(HARNESS_A) $(REF_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

# The process a plugin runs in (harness/src/run/worker.c); qconform spawns it from
# its own directory. Built with the same flags, sanitizers included. libm is
# linked even though the worker calls nothing in it, so a plugin that uses it
# without linking it still loads (as it did in a worker forked from qconform).
# WORKER_SRC is all it is made of, for the native and the cross builds alike: a source
# the worker needs goes there.
WORKER_SRC := harness/worker/main.c harness/src/run/worker.c harness/src/run/wire.c \
              harness/src/run/sandbox.c harness/src/run/stream.c harness/src/run/relay.c \
              harness/src/base/digest.c harness/src/base/platform.c
WORKER_OBJ := $(WORKER_SRC:%.c=$(BUILD)/%.o)
$(WORKER): $(WORKER_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ -Wl,--push-state,--no-as-needed -lm -Wl,--pop-state -lseccomp -lcap-ng \
	  -lnettle -lz \
	  $(LDLIBS)

# The static worker (README.md, "Kernels on another machine"): for a device whose libc is not
# the build's, the worker with the plugin linked in (no dlopen) and every library static.
#   make static-worker [PLUGIN_LIB='libvendor.a -lstdc++'] [CC=aarch64-linux-gnu-gcc]
# PLUGIN_LIB: the kernel library and what it needs (default: the reference plugin).
STATIC_WORKER := $(BUILD)/qconform-worker-static
PLUGIN_LIB    ?= $(BUILD)/reference/plugin.o $(REF_A)
$(BUILD)/static/worker.o: harness/src/run/worker.c | $(PB_GEN)/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DQC_WORKER_LINKED_PLUGIN -c $< -o $@
$(STATIC_WORKER): $(filter-out $(BUILD)/harness/src/run/worker.o,$(WORKER_OBJ)) \
                  $(BUILD)/static/worker.o $(filter %.o %.a,$(PLUGIN_LIB))
	$(CC) -static $(LDFLAGS) -o $@ $(filter-out $(PLUGIN_LIB),$(filter %.o,$^)) $(PLUGIN_LIB) \
	  -lm -lseccomp -lcap-ng -lnettle \
	  -lz -pthread
static-worker: $(STATIC_WORKER)
.PHONY: static-worker

# Cross builds (README.md, "Cross builds"):
#   make deps-cross               (root) dpkg --add-architecture arm64, the cross toolchain,
#                                 qemu-user and the arm64 libraries (CROSS_DEB_PKGS), and the
#                                 arm64 packages that cannot sit beside their amd64 ones
#                                 unpacked into CROSS_SYSROOT (harness/cross/sysroot.sh)
#   make cross ARCH=aarch64       into $(BUILD)/aarch64/: qconform-worker, the reference
#                                 plugin, the adapters whose arm64 libraries are there (the
#                                 others say why they skip) and qconform-worker-qemu, which
#                                 runs that worker under qemu-user:
#   QCONFORM_WORKER=build/aarch64/qconform-worker-qemu \
#     build/qconform run specs --plugin build/aarch64/libqconform_reference.so
# The harness stays native; only the worker and the plugin it loads are aarch64. Only aarch64
# (Debian's arm64) is known here.
CROSS_DEB_PKGS   = qemu-user gcc-$(CROSS_ARCH)-linux-gnu g++-$(CROSS_ARCH)-linux-gnu libgemmlowp-dev \
                   $(addsuffix :$(CROSS_DEB),libc6-dev libseccomp-dev libcap-ng-dev nettle-dev zlib1g-dev \
                     libdnnl2 libarmnn-dev libarmnn-cpuref-backend22 libarmnn-cpuacc-backend22 libarm-compute-dev)
# Not Multi-Arch: same (installing them for arm64 removes the amd64 ones), or, libdnnl-dev, with
# a dnnl_config.h that differs per architecture: unpacked into CROSS_SYSROOT, the runtime ones
# with everything they need, the -dev ones alone.
CROSS_SYSROOT_RUNTIME := libc6 libstdc++6 libgcc-s1 libxnnpack0 libpthreadpool0 libtorch1.13 libdnnl2
CROSS_SYSROOT_DEV     := libc6-dev linux-libc-dev libxnnpack-dev libpthreadpool-dev libtorch-dev libdnnl-dev
APT := DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900

deps-cross:
	@[ "$$(id -u)" = 0 ] || { echo "make deps-cross needs root (dpkg --add-architecture, apt-get)" >&2; exit 2; }
	@missing=""; for p in $(CROSS_DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  dpkg --add-architecture $(CROSS_DEB) && $(APT) update -qq && $(APT) install -y -qq $$missing || exit 2; \
	fi
	harness/cross/sysroot.sh $(CROSS_DEB) $(CROSS_SYSROOT) $(CROSS_SYSROOT_RUNTIME) -- $(CROSS_SYSROOT_DEV)

# CROSS_GOALS=cross-core: the worker, the reference plugin and the wrapper only (the suite's
# cross tests, suite/test_cross.c); cross-build adds the adapters.
CROSS_GOALS ?= cross-build
cross:
	@command -v $(CROSS_ARCH)-linux-gnu-gcc >/dev/null || { \
	  echo "make cross: no $(CROSS_ARCH)-linux-gnu-gcc; run 'make deps-cross' (root)" >&2; exit 2; }
	$(MAKE) --no-print-directory ARCH=$(CROSS_ARCH) BUILD=$(BUILD)/$(CROSS_ARCH) $(CROSS_GOALS)

ifneq ($(ARCH),)
# What a cross build makes; `make cross` calls it with ARCH and BUILD set.
CROSS_WRAPPER   := $(BUILD)/qconform-worker-qemu
# The prefix qemu finds the $(ARCH) loader and libraries under: CROSS_SYSROOT when there is one,
# else / (Debian's libc6:arm64, which libseccomp2:arm64 pulls in). Not the cross toolchain's
# /usr/$(ARCH)-linux-gnu: with its libc the sandbox's init spins in its PID namespace and the
# worker never starts (qemu 7.2; --no-sandbox works there).
CROSS_LD_PREFIX := $(if $(wildcard $(CROSS_SYSROOT)/lib/ld-linux-$(ARCH).so.1),$(CROSS_SYSROOT),/)
.PHONY: cross-core cross-build
cross-core: $(WORKER) $(REF_SO) $(CROSS_WRAPPER)
# and the stub plugins (the hostile catalogue, the faulty kernels) and the static worker, for
# a device's own run of the suite's kernels
cross-build: cross-core plugins cross-stubs $(STATIC_WORKER)
cross-stubs: $(STUB_SO)
.PHONY: cross-stubs

# The worker under qemu-user, as QCONFORM_WORKER: exec, so that qemu is the process the
# harness started (the worker checks its parent) and inherits its fds. QEMU_LD_PREFIX, when
# set, replaces the prefix qemu finds the $(ARCH) libraries under.
$(CROSS_WRAPPER): Makefile
	@mkdir -p $(dir $@)
	printf '%s\n' '#!/bin/sh' '# qconform-worker for $(ARCH) under qemu-user (Makefile, make cross).' \
	  'exec qemu-$(ARCH) -L "$${QEMU_LD_PREFIX:-$(CROSS_LD_PREFIX)}" "$$(dirname "$$0")/qconform-worker" "$$@"' > $@
	chmod +x $@
endif

# The main job: every spec against the reference plugin. Builds only qconform, its worker
# and the reference plugin (not the adapters, stubs or tests), then says what comes next.
run: deps-run
	$(MAKE) $(QCONFORM) $(WORKER) $(REF_SO)
	@$(QCONFORM) run specs --plugin $(REF_SO); st=$$?; \
	  echo; echo "next:"; \
	  echo "  the report:       reports/out/reference/report.html (JSON and JUnit beside it)"; \
	  echo "  your own kernel:  plugins/README.md, from plugins/example/example.c"; \
	  echo "  run it:           $(QCONFORM) run specs --plugin ./libyours.so"; \
	  echo "  certify it:       $(QCONFORM) certify --profile litert-int8 --plugin ./libyours.so"; \
	  echo "  every command:    $(QCONFORM) --help"; \
	  exit $$st

# The CUnit suites: unit tests, and end-to-end runs of the binary against the
# reference and the stub plugins (suite/test_run.c).
test-unit: all
	QCONFORM_BUILD=$(BUILD) $(TESTS)

# Same tests, every object built with ASan + UBSan; any report aborts the run. This pass looks
# for memory errors in the harness, the reference and the stubs, and repeats two things less:
#  - the stub plugins' runs over every spec (the run suite's pure delegate and lenient stub,
#    qct_specs() in suite/) take SAN_SPECS: every ONNX, torch and TF spec and LiteRT specs with
#    the negative cases and the conv, pooling, softmax, elementwise and gather paths. The
#    reference's own run still takes all of specs/, so every kernel runs under the sanitizers;
#  - no report is checked against its JSON Schema: the plain pass checks the same reports, and
#    the validator (python3-jsonschema) is not what the sanitizers are for;
#  - the hostile kernels whose outcome is the sandbox's (escapes), the catalogue as uid 65534
#    and the fault rows whose harness path another row takes run in the plain pass only
#    (suite/test_hostile.c);
#  - SAN_SKIP's suites run in the plain pass only: the adapters to the Debian libraries (thin
#    glue, not built with the sanitizers), and the gate, certificate and shard-merge suites,
#    which run qconform end to end on reports (their reader of reports meets the sanitizers in
#    the fuzz lane's fuzz_report, the runs they judge in the run, reports and export suites),
#    and the bare-metal runs under qemu-system-arm (the firmware is not the harness: the
#    import and feed paths they take meet the sanitizers in the export suite), and two suites
#    whose cost under the sanitizers is their subject, not memory: spec_limits (hostile specs
#    run to the Lua instruction and wall-clock limits, 40 s of CPU; the spec loader and Lua
#    sandbox they drive meet the sanitizers in the fuzz lane's fuzz_spec and in every suite
#    that loads specs) and cli (--help text, man pages and a `make install`; its option
#    reader is the one every other suite's commands go through)
SAN_SPECS := specs/onnx specs/torch specs/tf specs/litert/quantize.yaml specs/litert/dequantize.yaml \
             specs/litert/add.yaml specs/litert/conv_2d.yaml specs/litert/average_pool_2d.yaml \
             specs/litert/softmax.yaml specs/litert/gather_edges.yaml
# ASan's quarantine of freed memory is 16 MB instead of 256 MB: a use after free is still
# caught while the block waits there, and the pass's processes page in far less memory (on
# `qconform validate specs`: 200 MB instead of 750 MB peak, half the page faults).
# The sanitizer build has no variants of its own (reference/variants/variants.mk): its runs
# diagnose with the plain build's.
SAN_SKIP := plugin/,=certify,=gating,=pipeline,=mcu,=spec_limits,=cli
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=16 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 QCT_SPECS='$(SAN_SPECS)' \
           QCT_SKIP='$(SAN_SKIP)' \
           QCONFORM_VARIANTS='$(CURDIR)/build/variants'
test-san: variants
	$(SAN_ENV) $(MAKE) BUILD=build/san SAN=1 test-unit

# The edit-compile loop (well under 2 minutes of CPU): the unit suites of QUICK_SUITES (the
# reference's arithmetic, quantization parameters, generators, spec loading and validation, Lua,
# the op families with their small end-to-end runs, the references between files (docs); QCT_SUITE
# syntax, see suite/main.c) and one small end-to-end run of the binary over every semantics. No
# format check, no sanitizer pass, none of the long end-to-end suites (run, gating, certify,
# reports, hostile, interrupt, dump, mutation, refusals, examples, utf8, onnx/import) nor the
# adapters' suites: `make test` is still what CI runs.
QUICK_SUITES := reference,=qparams,=gen,=runner,=compare,=lua,litert,=onnx,=torch,=tf,=conventions,=docs
QUICK_SPECS  := specs/litert/add.yaml specs/litert/conv_2d.yaml specs/onnx/quantize_linear.yaml \
                specs/torch/fake_quantize_per_tensor_affine.yaml specs/tf/fake_quant_with_min_max_args.yaml
test-quick: all
	QCONFORM_BUILD=$(BUILD) QCT_SUITE='$(QUICK_SUITES)' $(TESTS)
	@mkdir -p $(BUILD)/quick
	$(QCONFORM) run $(QUICK_SPECS) --quiet --json $(BUILD)/quick/report.json

# `make test`: both passes (plain, sanitizers), each in two lanes. A lane is a process of the
# test binary; the lanes of a pass share a queue of its suites (QCT_QUEUE, suite/main.c) and
# take the next one whenever they are free. make runs three lanes at a time, in TEST_LANES
# order (a third lane fills the time the others spend waiting on their child processes: 9 % of
# the two cores were idle with two); when a lane ends, the fourth starts and shares what is left
# of its pass's queue. -k: a failing lane does not stop the others, every failure is reported.
TEST_LANES := test-lane-plain-1 test-lane-san-1 test-lane-plain-2 test-lane-san-2 test-lane-fuzz
test: deps
	$(MAKE) format-check
	rm -rf $(BUILD)/test-queue $(BUILD)/test-shared build/san/test-queue build/san/test-shared
	$(MAKE) -k -j3 --output-sync=target $(TEST_LANES)

san-all:
	$(MAKE) BUILD=build/san SAN=1 all

# The fuzz targets (`make fuzz`), TEST_FUZZ_SECONDS each from their seeds and past findings:
# every reader of outside files meets a few hundred thousand mutated files in every test run.
test-lane-fuzz:
	$(MAKE) fuzz-build fuzz-corpus
	$(MAKE) fuzz-run FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

.PHONY: $(TEST_LANES) fuzz fuzz-build fuzz-corpus fuzz-run
$(filter test-lane-plain-%,$(TEST_LANES)): test-lane-plain-%: all $(MCU_IF_TOOLCHAIN)
	QCONFORM_BUILD=$(BUILD) QCT_QUEUE=$(BUILD)/test-queue QCT_SHARED_DIR=$(BUILD)/test-shared $(TESTS)

$(filter test-lane-san-%,$(TEST_LANES)): test-lane-san-%: san-all variants
	$(SAN_ENV) QCONFORM_BUILD=build/san QCT_QUEUE=build/san/test-queue \
	  QCT_SHARED_DIR=build/san/test-shared build/san/qconform_tests

# `make bench`: the reference kernels (bench-kernels), then the pipeline over every spec with
# the reference plugin: cases/s at --jobs 1 and 2, the cost of --shard 1/4, the harness's time
# per case, the diagnosis's cost on a failing and on a passing run (suite/bench/bench_run.sh), then the readers of reports (report, diff, merge) on
# reports of BENCH_REPORT_CASES cases made from that run (suite/bench/bench_reports.sh): peak
# RSS and time; then what --remote costs: specs/litert locally and through a local
# `qconform-worker --stdio`, the ratio (suite/bench/bench_remote.sh). Ratios within one run, not
# seconds across machines.
# `make bench-kernels`: the reference FULLY_CONNECTED and CONV_2D on the shapes that dominate
# a run, in GOPS, beside XNNPACK's single-threaded time on the same shapes when its Debian
# packages are installed (suite/bench/bench_kernels.c says what is timed).
BENCH_KERNELS := $(BUILD)/bench_kernels
BENCH_XNNPACK := $(and $(wildcard /usr/include/xnnpack.h),$(wildcard /usr/include/pthreadpool.h))

$(BENCH_KERNELS): suite/bench/bench_kernels.c $(REF_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(if $(BENCH_XNNPACK),-DQCB_HAVE_XNNPACK) -o $@ $< $(REF_A) \
	  $(LDFLAGS) $(if $(BENCH_XNNPACK),-lXNNPACK) $(LDLIBS)

bench-kernels: $(BENCH_KERNELS)
	$(BENCH_KERNELS)

bench: all bench-kernels
	suite/bench/bench_run.sh $(BUILD)
	suite/bench/bench_reports.sh $(BUILD) $(BUILD)/bench/jobs1.best.json $(BENCH_REPORT_CASES)
	suite/bench/bench_remote.sh $(BUILD)
BENCH_REPORT_CASES ?= 100000 1000000

# `make bench-baseline REV=<commit>`: this build's cases per second at --jobs 1 and 2 against
# an earlier commit's, both over that commit's specs/, in one run (suite/bench/bench_baseline.sh).
bench-baseline: all
	@[ -n "$(REV)" ] || { echo "make bench-baseline needs REV=<commit>" >&2; exit 2; }
	suite/bench/bench_baseline.sh $(BUILD) $(REV)

# ONNX's own backend node tests of the quantization ops (Debian's libonnx-testdata) as
# golden specs in specs/onnx/imported/, with the package and version as provenance; the
# suite checks that this gives exactly the committed files (suite/test_onnx_import.c).
ONNX_TESTDATA ?= /usr/share/libonnx-testdata/data/node
import-onnx: deps
	$(MAKE) $(QCONFORM)
	@v=$$(dpkg-query -W -f='$${Version}' libonnx-testdata) || exit 2; \
	  rm -rf $(BUILD)/onnx-imported && \
	  $(QCONFORM) import-onnx $(ONNX_TESTDATA) --out $(BUILD)/onnx-imported \
	    --provenance "Debian package libonnx-testdata $$v" && \
	  rm -rf specs/onnx/imported && cp -r $(BUILD)/onnx-imported specs/onnx/imported

# ONNX Runtime's goldens (harness/import-ort/import.js, build-time only): onnxruntime-node 1.30.0
# and onnx-proto from npm, pinned by harness/import-ort/package-lock.json, installed with
# --ignore-scripts (the package's install script downloads from a host CI cannot reach; the
# package ships libonnxruntime itself) into ORT_NPM, one place for every build directory. The
# import builds single-node models, runs them on ORT's CPU provider and writes specs/ort/imported
# (the com.microsoft ops) and specs/onnx/ort (Q/DQ, *.yaml.pending: README.md there); the suite
# checks that it gives exactly the committed files (suite/test_ort_import.c). Needs node and npm
# (Debian: nodejs npm).
ORT_NPM     := build/import-ort
ORT_MODULES := $(ORT_NPM)/node_modules
ort-npm: $(ORT_MODULES)/.package-lock.json
$(ORT_MODULES)/.package-lock.json: harness/import-ort/package.json harness/import-ort/package-lock.json
	@command -v npm >/dev/null || { echo "make ort-npm: no npm (Debian: apt-get install nodejs npm)" >&2; exit 2; }
	@mkdir -p $(ORT_NPM)
	cp harness/import-ort/package.json harness/import-ort/package-lock.json $(ORT_NPM)/
	cd $(ORT_NPM) && npm ci --ignore-scripts --no-audit --no-fund
# `make ort-fresh`: the same import on other data (import.js --reseed, each of ORT_FRESH_SEEDS)
# into $(BUILD)/ort-fresh/SEED, each run against the reference: ONNX Runtime 1.30's outputs on
# cases the reference was never checked on must conform too. Exit 1 if one does not.
ORT_FRESH_SEEDS ?= 1 2 3 4 5 6 7 8
ort-fresh: ort-npm $(QCONFORM)
	@st=0; for s in $(ORT_FRESH_SEEDS); do d=$(BUILD)/ort-fresh/$$s; rm -rf $$d; \
	  node harness/import-ort/import.js --modules $(ORT_MODULES) --out $$d --reseed $$s >/dev/null || exit 2; \
	  printf 'reseed %s: ' $$s; \
	  $(QCONFORM) run $$d/ort/imported $$d/onnx/ort --quiet --json $$d/report.json | tail -1; \
	  grep -q '"conforms": true' $$d/report.json 2>/dev/null || st=1; done; exit $$st

import-ort: ort-npm
	rm -rf $(BUILD)/ort-import
	node harness/import-ort/import.js --modules $(ORT_MODULES) --out $(BUILD)/ort-import
	rm -rf specs/ort/imported specs/onnx/ort
	cp -r $(BUILD)/ort-import/ort/imported specs/ort/imported
	cp -r $(BUILD)/ort-import/onnx/ort specs/onnx/ort

# libFuzzer, built with Debian's clang in build/fuzz, on a target per reader of outside files
# (suite/fuzz/fuzz_TARGET.c), each for FUZZ_SECONDS:
#  - spec: the spec loader and the case expansion; its corpus is seeded each run with every spec
#    of specs/ and the hostile seeds of suite/fuzz/seeds/*.yaml (and suite/fuzz/spec.dict);
#  - onnx: the ONNX importer's decoding of model.onnx and .pb files; seeded with every file of
#    the quantization ops' node tests of the installed libonnx-testdata (ONNX_TESTDATA);
#  - import (an export's manifest and case file, a runner's records and stream, in one file:
#    suite/fuzz/fuzz_import.c), journal (run --resume), report (merge, diff, report,
#    --baseline), waivers (--waivers): seeded with suite/fuzz/seeds/TARGET/, which also keeps
#    every input a run found (a regression seed each).
# Corpora (build/fuzz/corpus-TARGET) keep what earlier runs found; findings (crash-*, leak-*,
# timeout-*, oom-*) land in build/fuzz as TARGET-crash-... `make test` runs every target for
# TEST_FUZZ_SECONDS (its lane test-lane-fuzz).
FUZZ_TARGETS  := spec onnx import journal report waivers
FUZZ_DEB_PKGS := clang libclang-rt-14-dev libyaml-dev liblua5.4-dev libcunit1-dev libjansson-dev \
                 libseccomp-dev libcap-ng-dev nettle-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev \
                 zlib1g-dev libonnx-testdata pkg-config
FUZZ_SECONDS  ?= 60
TEST_FUZZ_SECONDS ?= 5
FUZZ_BUILD    := build/fuzz
FUZZ_ARGS     ?=
FUZZ_ENV      := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
FUZZ_OPTS      = -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=30 -rss_limit_mb=2048 \
                 -print_final_stats=1
FUZZ_DICT_spec := -dict=suite/fuzz/spec.dict

$(BUILD)/fuzz_%: $(BUILD)/suite/fuzz/fuzz_%.o $(HARNESS_A) $(REF_A)
	$(CC) $(subst fuzzer-no-link,fuzzer,$(LDFLAGS)) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

fuzz-build:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=clang SAN=fuzz check-deps $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz-corpus:
	@for t in $(FUZZ_TARGETS); do mkdir -p $(FUZZ_BUILD)/corpus-$$t; \
	  if [ -d suite/fuzz/seeds/$$t ]; then cp suite/fuzz/seeds/$$t/* $(FUZZ_BUILD)/corpus-$$t/; fi; done
	@find specs -name '*.yaml' | while read -r f; do cp "$$f" "$(FUZZ_BUILD)/corpus-spec/spec_$$(echo "$$f" | tr / _)"; done && \
	  cp suite/fuzz/seeds/*.yaml $(FUZZ_BUILD)/corpus-spec/
	@cd $(ONNX_TESTDATA) && \
	  find . -type f \( -path './test_*quantizelinear*' -o -path './test_qlinear*' -o -path './test_*integer*' \) | \
	  while read -r f; do cp "$$f" "$(CURDIR)/$(FUZZ_BUILD)/corpus-onnx/$$(echo "$${f#./}" | tr / _)"; done

# Every target for FUZZ_SECONDS; the first finding fails it (after the other targets ran).
fuzz-run:
	@st=0; for t in $(FUZZ_TARGETS); do \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_OPTS) \
	    $$( [ $$t = spec ] && echo $(FUZZ_DICT_spec) ) -artifact_prefix=$(FUZZ_BUILD)/$$t- \
	    $(FUZZ_ARGS) $(FUZZ_BUILD)/corpus-$$t 2>$(FUZZ_BUILD)/$$t.log || \
	    { st=1; tail -40 $(FUZZ_BUILD)/$$t.log; }; \
	  grep -h 'stat::number_of_executed_units\|stat::peak_rss_mb' $(FUZZ_BUILD)/$$t.log; \
	done; exit $$st

fuzz:
	$(MAKE) deps DEB_PKGS="$(FUZZ_DEB_PKGS)"
	$(MAKE) fuzz-build fuzz-corpus
	$(MAKE) fuzz-run

# `make install PREFIX=/usr/local DESTDIR=`: qconform (bin/), its worker (libexec/qconform/),
# the reference plugin and the adapters that were built (lib/qconform/, lib/qconform/plugins/),
# the catalogue's variants, the diagnosis's hypotheses (lib/qconform/variants/),
# the plugin headers (plugin.h, plugin_util.h) and qconform-plugin.pc (include/qconform/,
# lib/pkgconfig/), the specs and the report schemas (share/qconform/: the installed qconform
# takes these specs by default) and the man pages (share/man/man1/, written by qconform itself from its --help text: `make man`).
PREFIX  ?= /usr/local
DESTDIR ?=
QC_VERSION := $(shell sed -n 's/^\#define QC_VERSION *"\(.*\)"/\1/p' harness/src/report/report.h)
# one page per command qconform lists (qconform --commands)
man: $(QCONFORM)
	@mkdir -p $(BUILD)/man
	$(QCONFORM) --man > $(BUILD)/man/qconform.1
	@for c in $$($(QCONFORM) --commands); do \
	  echo "$(QCONFORM) --man $$c > $(BUILD)/man/qconform-$$c.1"; \
	  $(QCONFORM) --man $$c > $(BUILD)/man/qconform-$$c.1 || exit 2; done

# It builds only what it installs (not the tests, the stubs or the adapters): the adapters that
# are built are installed too; `make install-adapters` builds them first.
install: check-deps $(QCONFORM) $(WORKER) $(REF_SO) $(VAR_SO) man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/qconform \
	  $(DESTDIR)$(PREFIX)/lib/qconform/plugins $(DESTDIR)$(PREFIX)/lib/qconform/variants \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/qconform $(DESTDIR)$(PREFIX)/share/qconform \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(QCONFORM) $(DESTDIR)$(PREFIX)/bin/qconform
	install -m 755 $(WORKER) $(DESTDIR)$(PREFIX)/libexec/qconform/qconform-worker
	install -m 644 $(REF_SO) $(DESTDIR)$(PREFIX)/lib/qconform/libqconform_reference.so
	for p in $(wildcard $(BUILD)/plugins/libqcf_*.so); do \
	  install -m 644 $$p $(DESTDIR)$(PREFIX)/lib/qconform/plugins/ || exit 2; done
	install -m 644 $(VAR_SO) $(DESTDIR)$(PREFIX)/lib/qconform/variants/
	install -m 644 harness/include/qconform/plugin.h harness/include/qconform/plugin_util.h \
	  harness/runner/qconform_case.h \
	  $(DESTDIR)$(PREFIX)/include/qconform/
	install -d $(DESTDIR)$(PREFIX)/share/qconform/runner
	install -m 644 harness/runner/qconform_runner.c harness/runner/qconform_case.h \
	  $(DESTDIR)$(PREFIX)/share/qconform/runner/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(QC_VERSION)|' \
	  harness/pkgconfig/qconform-plugin.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/qconform-plugin.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/qconform/specs $(DESTDIR)$(PREFIX)/share/qconform/schema
	cp -R specs $(DESTDIR)$(PREFIX)/share/qconform/specs
	cp -R reports/schema $(DESTDIR)$(PREFIX)/share/qconform/schema
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

install-adapters: plugins
	$(MAKE) install

.PHONY: install-adapters

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/qconform $(DESTDIR)$(PREFIX)/libexec/qconform \
	  $(DESTDIR)$(PREFIX)/lib/qconform $(DESTDIR)$(PREFIX)/lib/pkgconfig/qconform-plugin.pc \
	  $(DESTDIR)$(PREFIX)/include/qconform $(DESTDIR)$(PREFIX)/share/qconform \
	  $(DESTDIR)$(PREFIX)/share/man/man1/qconform.1 $(DESTDIR)$(PREFIX)/share/man/man1/qconform-*.1

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cc')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h' '*.cc')

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
