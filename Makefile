# cuplay: a CUDA kernel playground. `make`, `make run`, `make test`.

CUDA_HOME ?= /usr/local/cuda
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
SHAREDIR  ?= $(PREFIX)/share/cuplay
CC        ?= cc
VERSION   := 0.1.0

# Project flags first; the user's CFLAGS/LDFLAGS are appended, never replaced.
WARN      := -Wall -Wextra -Wshadow -Wno-unused-parameter
BASEFLAGS := -std=c17 -D_GNU_SOURCE -O2 -g $(WARN) -MMD -MP \
             -DCUPLAY_VERSION='"$(VERSION)"' -DCUDA_HOME_DEFAULT='"$(CUDA_HOME)"' \
             -DCUPLAY_SHAREDIR='"$(SHAREDIR)"'
LIBS      := -pthread -ldl -lm

# GNU readline when its headers exist; plain line reads otherwise.
ifeq ($(origin HAVE_READLINE), undefined)
HAVE_READLINE := $(shell echo 'int main(void){return 0;}' | $(CC) -x c -include stdio.h \
                   -include readline/readline.h - -o /dev/null -lreadline >/dev/null 2>&1 && echo 1 || echo 0)
endif
ifeq ($(HAVE_READLINE),1)
BASEFLAGS += -DHAVE_READLINE=1
LIBS      += -lreadline
endif

ifeq ($(SANITIZE),1)
BASEFLAGS += -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDSAN     := -fsanitize=address,undefined
BUILD     := build/san
else
BUILD     := build/rel
endif
ifneq ($(HAVE_READLINE),1)
BUILD     := $(BUILD)-plain
endif
BIN       ?= cuplay

ALL_CFLAGS  = $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDSAN) $(LDFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

CORE_SRC := $(filter-out src/main.c,$(wildcard src/*.c))
CORE_OBJ := $(CORE_SRC:src/%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/main.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all run test unit bench demo install uninstall clean cuplay
all: cuplay
ifneq ($(BIN),cuplay)
cuplay: $(BIN)
endif

$(BIN): $(MAIN_OBJ) $(BUILD)/libcuplay.a
	@echo "  LINK  $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/libcuplay.a: $(CORE_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcuplay.a
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcuplay.a $(LIBS)

run: cuplay
	./cuplay

unit: $(UNIT_BIN)

# Every test: unit tests, NVRTC compiles of every kernel, golden tests of the
# binary, and the GPU tests (which say "skipped: no GPU" without one).
test: cuplay $(UNIT_BIN)
	$(Q)CUPLAY=./cuplay UNIT_BIN="$(UNIT_BIN)" bash tests/run.sh

bench: cuplay
	$(Q)CUPLAY=./cuplay bash tests/bench.sh

demo: cuplay
	./cuplay --step sessions/bank_conflicts.session

install: cuplay
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/kernels_src $(DESTDIR)$(SHAREDIR)/sessions
	install -m 755 cuplay $(DESTDIR)$(BINDIR)/cuplay
	install -m 644 $(wildcard kernels_src/*.cu kernels_src/*.cuh) $(DESTDIR)$(SHAREDIR)/kernels_src/
	$(if $(wildcard sessions/*.session),install -m 644 $(wildcard sessions/*.session) $(DESTDIR)$(SHAREDIR)/sessions/)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cuplay
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -rf build cuplay

-include $(CORE_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)
