# cuplay: a CUDA kernel playground. `make`, `make run`, `make test`.
#
# src/ is in folders by layer, bottom to top (src/README.md; a file calls
# only its own layer and those below, as tests/layers.sh checks):
#   base  check  kfile  compile  device  client  worker  record  cmd  board  front
LAYERS    := base check kfile compile device client worker record cmd board front

CUDA_HOME ?= /usr/local/cuda
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
SHAREDIR  ?= $(PREFIX)/share/cuplay
DOCDIR    ?= $(PREFIX)/share/doc/cuplay
MANDIR    ?= $(PREFIX)/share/man
CC        ?= cc
VERSION   := 0.1.0

# Project flags first; the user's CFLAGS/LDFLAGS are appended, never replaced.
WARN      := -Wall -Wextra -Wshadow -Wno-unused-parameter
DEFINES   := -DCUPLAY_VERSION='"$(VERSION)"' -DCUDA_HOME_DEFAULT='"$(CUDA_HOME)"' \
             -DCUPLAY_SHAREDIR='"$(SHAREDIR)"' -DCUPLAY_DOCDIR='"$(DOCDIR)"'
INCLUDES  := $(LAYERS:%=-Isrc/%)
BASEFLAGS := -std=c17 -D_GNU_SOURCE -O2 -g $(WARN) -MMD -MP $(DEFINES) $(INCLUDES)
LIBS      := -pthread -ldl -lm

# GNU readline when its headers exist; otherwise the line editor built in,
# linenoise (vendor/linenoise, BSD-2-Clause: vendor/lineedit.c compiles it),
# which the link then names. Either keeps the history in the same file.
READLINE_H ?= readline/readline.h
ifeq ($(origin HAVE_READLINE), undefined)
HAVE_READLINE := $(shell echo 'int main(void){return 0;}' | $(CC) -x c -include stdio.h \
                   -include $(READLINE_H) - -o /dev/null -lreadline >/dev/null 2>&1 && echo 1 || echo 0)
ifneq ($(HAVE_READLINE),1)
READLINE_NOTE := readline headers not found: lines are edited by the built-in linenoise (vendor/linenoise)
endif
endif
ifeq ($(HAVE_READLINE),1)
BASEFLAGS += -DHAVE_READLINE=1
LIBS      += -lreadline
else
BASEFLAGS += -DHAVE_LINENOISE=1 -Ivendor/linenoise
endif

# The class board (`cuplay --board`, src/board/) links GNU libmicrohttpd and
# SQLite: from BOARD_PREFIX (DIR/include, DIR/lib; the lib folder first on
# the link and in the run path, sonames as the GPU hosts have them), else
# pkg-config. Without them the rest builds and `cuplay --board` says which
# is absent.
ifneq ($(BOARD_PREFIX),)
BOARD_CFLAGS := -I$(abspath $(BOARD_PREFIX))/include
BOARD_LIBS   := -L$(abspath $(BOARD_PREFIX))/lib -Wl,-rpath,$(abspath $(BOARD_PREFIX))/lib \
                $(if $(wildcard $(BOARD_PREFIX)/lib/libmicrohttpd.so),-lmicrohttpd,-l:libmicrohttpd.so.12) \
                $(if $(wildcard $(BOARD_PREFIX)/lib/libsqlite3.so),-lsqlite3,-l:libsqlite3.so.0)
else
BOARD_MISSING := $(strip $(foreach p,libmicrohttpd sqlite3,$(if $(shell pkg-config --exists $(p) 2>/dev/null && echo y),,$(p))))
ifeq ($(BOARD_MISSING),)
BOARD_CFLAGS := $(shell pkg-config --cflags libmicrohttpd sqlite3)
BOARD_LIBS   := $(shell pkg-config --libs libmicrohttpd sqlite3)
else
BOARD_CFLAGS := -DBOARD_MISSING='"$(subst $() $(), and ,$(BOARD_MISSING))"'
endif
endif
DEFINES   += $(BOARD_CFLAGS)
BASEFLAGS += $(BOARD_CFLAGS)
LIBS      += $(BOARD_LIBS)

# libcurl for `submit` (a class board's client), where its headers are
# found: pkg-config's, else BOARD_PREFIX's include/ with the library from its
# lib/ or the system's libcurl.so.4 (a host with the library and no headers:
# `make BOARD_PREFIX=DIR`, DIR holding include/curl/). Without it, submit
# says so in one line; HAVE_CURL=0 leaves it out.
ifeq ($(origin HAVE_CURL), undefined)
CURL_TRY = echo 'int main(void){return curl_global_init(0);}' | $(CC) -x c -include curl/curl.h - -o /dev/null
ifneq ($(BOARD_PREFIX),)
CURL_CFLAGS := -I$(BOARD_PREFIX)/include
CURL_LIBS   := -L$(BOARD_PREFIX)/lib $(shell for l in -lcurl -l:libcurl.so.4; do $(CURL_TRY) $(CURL_CFLAGS) \
                 -L$(BOARD_PREFIX)/lib $$l >/dev/null 2>&1 && { echo $$l; break; }; done)
else
CURL_CFLAGS := $(shell pkg-config --cflags libcurl 2>/dev/null)
CURL_LIBS   := $(shell pkg-config --libs libcurl 2>/dev/null)
endif
HAVE_CURL := $(shell $(CURL_TRY) $(CURL_CFLAGS) $(CURL_LIBS) >/dev/null 2>&1 && echo 1 || echo 0)
endif
ifeq ($(HAVE_CURL),1)
BASEFLAGS += -DHAVE_CURL=1 $(CURL_CFLAGS)
LIBS      += $(CURL_LIBS)
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
ifeq ($(SANITIZE),1)
BIN       ?= $(BUILD)/cuplay
endif
BIN       ?= cuplay

ALL_CFLAGS  = $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDSAN) $(LDFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif
# `make -s`: not a line of its own (no CC or LINK lines)
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
SAY := @:
else
SAY := @echo
endif

CORE_SRC := $(filter-out src/front/main.c,$(wildcard $(LAYERS:%=src/%/*.c)))
CORE_OBJ := $(CORE_SRC:src/%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/front/main.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all run test unit bench soak demo install uninstall clean jupyter-install
all: cuplay
# `cuplay` is the binary itself (a second `make` relinks nothing), or a name
# for $(BIN) when that is elsewhere (SANITIZE=1)
ifneq ($(BIN),cuplay)
.PHONY: cuplay
cuplay: $(BIN)
endif

$(BIN): $(MAIN_OBJ) $(BUILD)/libcuplay.a
	$(SAY) "  LINK  $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
	$(if $(READLINE_NOTE),@echo "  note: $(READLINE_NOTE)" >&2)
	$(if $(BOARD_MISSING),@echo "  note: $(BOARD_MISSING) not found (pkg-config, or BOARD_PREFIX=DIR): cuplay --board is left out" >&2)

# vendored code, its warnings not shown (they are its authors' to fix)
VENDOR_OBJ = $(if $(filter 1,$(HAVE_READLINE)),,$(BUILD)/vendor/lineedit.o)

$(BUILD)/libcuplay.a: $(CORE_OBJ) $(VENDOR_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/vendor/%.o: vendor/%.c
	@mkdir -p $(dir $@)
	$(SAY) "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -w -c -o $@ $<

$(BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(SAY) "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcuplay.a
	@mkdir -p $(dir $@)
	$(SAY) "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcuplay.a $(LIBS)

run: cuplay
	./cuplay

unit: $(UNIT_BIN)

# Every test: unit tests, NVRTC compiles of every kernel, golden tests of the
# binary, and the GPU tests (which say "skipped: no GPU" without one).
# SANITIZE=1: the same tests on an ASan+UBSan build (build/san/cuplay);
# leaks inside NVRTC and the loader are suppressed by tests/lsan.supp, ours never.
# intercept_tls_get_addr=0: LSan's guess at the dynamic TLS of dlopen'ed NVRTC
# can read garbage ranges and crash its own tracer ("Tracer caught signal 11").
# protect_shadow_gap=0: the CUDA driver maps device memory where ASan keeps
# its shadow gap; without it cuInit fails on a GPU machine.
ifeq ($(SANITIZE),1)
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0:protect_shadow_gap=0 \
           LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
endif
RUN_BIN := $(if $(filter /%,$(BIN)),$(BIN),./$(BIN))
# the objects tests/layers.sh reads the call graph from
test: export OBJ_DIR = $(BUILD)

test: cuplay $(UNIT_BIN) build/bench/cublas_gemm
	$(Q)$(SAN_ENV) CUPLAY=$(RUN_BIN) MAKE_BIN=$(BIN) HAVE_READLINE=$(HAVE_READLINE) UNIT_BIN="$(UNIT_BIN)" bash tests/run.sh

bench: cuplay build/bench/cublas_sgemm build/bench/cublas_gemm build/bench/rule_replay build/bench/clockprobe
	$(Q)CUPLAY=./cuplay bash tests/bench.sh

build/bench/cublas_sgemm: tests/bench/cublas_sgemm.c $(BUILD)/libcuplay.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcuplay.a $(LIBS)

build/bench/cublas_gemm: tests/bench/cublas_gemm.c $(BUILD)/libcuplay.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcuplay.a $(LIBS)

build/bench/rule_replay: tests/bench/rule_replay.c $(BUILD)/libcuplay.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcuplay.a $(LIBS)

build/bench/clockprobe: tests/bench/clockprobe.c $(BUILD)/libcuplay.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcuplay.a $(LIBS)

soak: cuplay
	$(Q)CUPLAY=./cuplay python3 tests/soak.py

demo: cuplay
	./cuplay --step sessions/bank_conflicts.session

# What `make install` ships: the kernel files, headers and lessons MANIFEST
# lists (files of one's own in kernels_src/ and sessions/ stay out), the
# binary, the man page, and the README with the reference (docs/*.md) in
# DOCDIR. `uninstall` removes those same files, then the directories
# install made if empty.
SHIP_FILES = $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' MANIFEST)
SHIP_SUBS  = kernels_src sessions sessions/exercises
SHIP_DIRS  = $(SHIP_SUBS:%=$(DESTDIR)$(SHAREDIR)/%)
# the shipped files directly in folder $(1)
ship_in    = $(foreach f,$(SHIP_FILES),$(if $(filter $(1)/,$(dir $(f))),$(f)))
DOC_FILES  = $(wildcard README.md) $(sort $(wildcard docs/*.md))

install: cuplay
	install -d $(DESTDIR)$(BINDIR) $(SHIP_DIRS) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/cuplay
	install -m 644 cuplay.1 $(DESTDIR)$(MANDIR)/man1/cuplay.1
	$(if $(DOC_FILES),install -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/)
	$(foreach d,$(SHIP_SUBS),$(if $(call ship_in,$(d)),\
	  install -m 644 $(call ship_in,$(d)) $(DESTDIR)$(SHAREDIR)/$(d)/;))

# The Jupyter kernel (jupyter/, docs/classroom.md): the kernelspec `cuplay`,
# run by the Python given (it needs ipykernel), for this user; a shared
# image installs it with JUPYTER_WHERE=--sys-prefix or --prefix=DIR.
PYTHON       ?= python3
JUPYTER_WHERE ?= --user
jupyter-install: cuplay
	$(PYTHON) jupyter/install.py --cuplay $(abspath $(BIN)) $(JUPYTER_WHERE)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cuplay $(DESTDIR)$(MANDIR)/man1/cuplay.1 \
	  $(addprefix $(DESTDIR)$(SHAREDIR)/,$(SHIP_FILES)) $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES)))
	@for d in $(DESTDIR)$(SHAREDIR)/sessions/exercises $(SHIP_DIRS) $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(DOCDIR); do \
	  if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null || echo "uninstall: kept $$d (it holds files install did not write)"; fi; \
	done

# Every golden test under valgrind (memcheck): errors and definite leaks fail.
valgrind: cuplay
	$(Q)CUPLAY=$(RUN_BIN) bash tests/valgrind.sh

# ---- fuzzing: clang's libFuzzer with ASan and UBSan ----------------------
# `make fuzz` runs each target for FUZZ_SECONDS (default 60) from its seeds
# in tests/fuzz/corpus/NAME (new inputs go to build/fuzz/corpus/NAME, crashes
# to build/fuzz/crash-NAME-*); `make fuzz-smoke` replays the seeds and
# regression inputs only (CI). FUZZ=name limits either to one target.
# Needs clang and its libFuzzer runtime (Debian: clang libclang-rt-dev).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ         ?= spec expr session cmd wire json board bapi
FUZZ_BUILD   := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=c17 -D_GNU_SOURCE -O1 -g $(WARN) -MMD -MP $(DEFINES) $(INCLUDES) $(FUZZ_SAN) $(CPPFLAGS) $(CFLAGS)
FUZZ_OBJ     := $(CORE_SRC:src/%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN     := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ))
FUZZ_ENV     := ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 \
                LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CUPLAY_ROOT=$(CURDIR)
# per target: input size, time limit of one input, dictionary
FUZZ_OPT_spec    := -max_len=4096 -dict=$(CURDIR)/tests/fuzz/spec.dict
FUZZ_OPT_expr    := -max_len=256 -dict=$(CURDIR)/tests/fuzz/expr.dict
FUZZ_OPT_session := -max_len=1024 -timeout=60 -dict=$(CURDIR)/tests/fuzz/cmd.dict
FUZZ_OPT_cmd     := -max_len=512 -timeout=60 -dict=$(CURDIR)/tests/fuzz/cmd.dict
FUZZ_OPT_wire    := -max_len=8192
FUZZ_OPT_json    := -max_len=1024
FUZZ_OPT_board   := -max_len=2048
FUZZ_OPT_bapi    := -max_len=2048

.PHONY: fuzz fuzz-build fuzz-smoke valgrind
.SECONDARY: $(FUZZ_OBJ)
fuzz-build: $(FUZZ_BIN)

$(FUZZ_BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(SAY) "  CC    $< (fuzz)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fixture.h $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(SAY) "  LINK  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) -pthread -ldl -lm $(BOARD_LIBS) \
	  || { echo "make: $@ needs clang with libFuzzer and the sanitizer runtimes" \
	            "(Debian: apt-get install clang libclang-rt-dev)" >&2; exit 1; }

fuzz: $(FUZZ_BIN)
	$(Q)set -e; $(foreach t,$(FUZZ),\
	  mkdir -p $(FUZZ_BUILD)/corpus/$(t); echo "fuzz $(t): $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$(t) $(FUZZ_OPT_$(t)) -max_total_time=$(FUZZ_SECONDS) \
	    -print_final_stats=1 -artifact_prefix=$(CURDIR)/$(FUZZ_BUILD)/crash-$(t)- \
	    $(CURDIR)/$(FUZZ_BUILD)/corpus/$(t) $(CURDIR)/tests/fuzz/corpus/$(t);)

fuzz-smoke: $(FUZZ_BIN)
	$(Q)set -e; $(foreach t,$(FUZZ),\
	  if $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$(t) $(FUZZ_OPT_$(t)) -runs=0 \
	       -artifact_prefix=$(CURDIR)/$(FUZZ_BUILD)/crash-$(t)- $(CURDIR)/tests/fuzz/corpus/$(t) \
	       >$(FUZZ_BUILD)/smoke-$(t).log 2>&1; \
	  then echo "fuzz-smoke $(t): $$(ls tests/fuzz/corpus/$(t) | wc -l) inputs ok"; \
	  else echo "FAIL: fuzz-smoke $(t)"; tail -n 40 $(FUZZ_BUILD)/smoke-$(t).log; exit 1; fi;)

clean:
	rm -rf build cuplay

-include $(CORE_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(VENDOR_OBJ:.o=.d)
