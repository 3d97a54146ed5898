# The streamed runner on a bare-metal Cortex-M: qemu-system-arm's MPS2 boards (board.c,
# mps2.ld: 1 MiB of flash, 256 KiB of RAM), the reference plugin as the kernel.
#   make mcu    $(BUILD)/mcu/fw-m3.elf (mps2-an385, Cortex-M3, soft float),
#               $(BUILD)/mcu/fw-m7.elf (mps2-an500, Cortex-M7, FPU) and, for the suite,
#               $(BUILD)/mcu/fw-m3-faults.elf (suite/mcu/faults.c)
# Needs gcc-arm-none-eabi and picolibc-arm-none-eabi (`make deps-mcu`).
MCU_CC      ?= arm-none-eabi-gcc
MCU_ARENA   ?= 49152
MCU_BUILD   := $(BUILD)/mcu
MCU_FLAGS_m3 := -mcpu=cortex-m3 -mthumb -mfloat-abi=soft
MCU_FLAGS_m7 := -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16
MCU_CFLAGS  := --specs=picolibc.specs -std=c11 -Os -g -ffp-contract=off -ffunction-sections -fdata-sections \
               -Wall -Wextra -Werror -I. -Iharness/include -Iharness/runner -Ireference
# picolibc (Debian's picolibc-arm-none-eabi), not newlib: its printf has the long long the
# kernel's messages print (%lld), which Debian's newlib builds leave out
MCU_LDFLAGS := --specs=picolibc.specs -nostartfiles -Wl,--gc-sections \
               -T harness/runner/boards/mps2/mps2.ld
MCU_REF     := $(REF_SRC:reference/%.c=%)
# The firmware has one thread, so the reference's one thread-local variable is a plain one
# (its int32_t fields are printed with PRId32: picolibc's int32_t is long)
MCU_REF_CFLAGS := -D_Thread_local=

define mcu_cpu
$(MCU_BUILD)/$(1)/ref/%.o: reference/%.c | $(MCU_BUILD)/$(1)/ref
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_CFLAGS) $(MCU_REF_CFLAGS) -c $$< -o $$@
$(MCU_BUILD)/$(1)/plugin.o: reference/plugin.c | $(MCU_BUILD)/$(1)/ref
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_CFLAGS) $(MCU_REF_CFLAGS) -c $$< -o $$@
$(MCU_BUILD)/$(1)/plugin-inner.o: reference/plugin.c | $(MCU_BUILD)/$(1)/ref
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_CFLAGS) $(MCU_REF_CFLAGS) -Dqconform_plugin_negotiate=qcref_negotiate -c $$< -o $$@
$(MCU_BUILD)/$(1)/faults.o: suite/mcu/faults.c | $(MCU_BUILD)/$(1)/ref
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_CFLAGS) -c $$< -o $$@
$(MCU_BUILD)/$(1)/runner.o: harness/runner/qconform_runner.c harness/runner/qconform_case.h harness/include/qconform/plugin.h | $(MCU_BUILD)/$(1)/ref
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_CFLAGS) -std=c99 -pedantic -DQCONFORM_RUNNER_STREAMED -DQCONFORM_RUNNER_ARENA=$(MCU_ARENA) -c $$< -o $$@
$(MCU_BUILD)/$(1)/board.o: harness/runner/boards/mps2/board.c harness/runner/qconform_case.h | $(MCU_BUILD)/$(1)/ref
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_CFLAGS) -c $$< -o $$@
$(MCU_BUILD)/$(1)/board-1s.o: harness/runner/boards/mps2/board.c harness/runner/qconform_case.h | $(MCU_BUILD)/$(1)/ref
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_CFLAGS) -DQCB_CASE_SECONDS=1 -c $$< -o $$@
$(MCU_BUILD)/$(1)/ref:
	mkdir -p $$@
$(MCU_BUILD)/fw-$(1).elf: $(MCU_BUILD)/$(1)/runner.o $(MCU_BUILD)/$(1)/board.o $(MCU_BUILD)/$(1)/plugin.o $(MCU_REF:%=$(MCU_BUILD)/$(1)/ref/%.o) harness/runner/boards/mps2/mps2.ld
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_LDFLAGS) $$(filter %.o,$$^) -lm -o $$@
$(MCU_BUILD)/fw-$(1)-faults.elf: $(MCU_BUILD)/$(1)/runner.o $(MCU_BUILD)/$(1)/board-1s.o $(MCU_BUILD)/$(1)/faults.o $(MCU_BUILD)/$(1)/plugin-inner.o $(MCU_REF:%=$(MCU_BUILD)/$(1)/ref/%.o) harness/runner/boards/mps2/mps2.ld
	$(MCU_CC) $(MCU_FLAGS_$(1)) $(MCU_LDFLAGS) $$(filter %.o,$$^) -lm -o $$@
endef
$(eval $(call mcu_cpu,m3))
$(eval $(call mcu_cpu,m7))

# `make test` builds them where the toolchain is (suite/test_mcu.c runs them under qemu)
MCU_IF_TOOLCHAIN := $(if $(shell command -v $(MCU_CC) 2>/dev/null),mcu)

mcu: $(MCU_BUILD)/fw-m3.elf $(MCU_BUILD)/fw-m7.elf $(MCU_BUILD)/fw-m3-faults.elf

deps-mcu:
	apt-get install -y --no-install-recommends gcc-arm-none-eabi picolibc-arm-none-eabi qemu-system-arm

.PHONY: mcu deps-mcu
