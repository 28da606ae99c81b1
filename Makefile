# hdgc — front door. `make run` and `make test` work on a fresh Debian machine.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_GEN  := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

# make install: under ~/.local by default (no root needed; ~/.local/bin is on PATH in most
# login shells); PREFIX=/usr/local (as root) or any other folder
PREFIX     ?= $(HOME)/.local

.PHONY: all deps build run test test-asan test-gpu install fuzz fuzz-build fuzz-ci clean

all: build

deps:
	@sh scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_GEN)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/hdgc run examples/poisson.hdg

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# install: bin/hdgc, lib/libhdgc.so (+ the PETSc module), include/hdgc.h, hdgc.pc,
# lib/cmake/hdgc (find_package), share/hdgc/examples, share/doc/hdgc under PREFIX.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "install: $(PREFIX)/bin is not on PATH: export PATH=$(PREFIX)/bin:\$$PATH";; esac

# test-gpu: the tests labelled gpu (device kernels vs the C backend); they fail
# instead of skipping when no GPU is usable.
test-gpu: build
	cd $(BUILD) && HDG_REQUIRE_GPU=1 ctest -L gpu --output-on-failure

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHDG_SANITIZE=ON $(CMAKE_GEN)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# fuzz: libFuzzer (+ ASan + UBSan) on FUZZ_TARGET (parser: the language frontend, gmsh:
# the mesh reader and topology, cache: the kernel cache reader, spec: the mesh specs,
# api: the public C API driven by programs of calls) for FUZZ_TIME seconds;
# fuzz-ci: each target for FUZZ_CI_TIME seconds from its seed corpus (fuzz/run.sh).
# Crashes land in build-fuzz/crashes/<target>/.
FUZZ_BUILD   ?= build-fuzz
FUZZ_TIME    ?= 60
FUZZ_CI_TIME ?= 20
FUZZ_TARGET  ?= parser
FUZZ_TARGETS := parser gmsh cache spec api
# clang-14 (package clang-14; plain `clang` is another package) + libclang-rt-14-dev
FUZZ_CC      ?= $(shell command -v clang-14 2>/dev/null || echo clang)
FUZZ_CXX     ?= $(shell command -v clang++-14 2>/dev/null || echo clang++)
fuzz-build: deps
	@# a build folder configured with another compiler (older make fuzz: clang) starts afresh
	@grep -qs "^CMAKE_C_COMPILER:[A-Z]*=$(FUZZ_CC)$$" $(FUZZ_BUILD)/CMakeCache.txt || rm -f $(FUZZ_BUILD)/CMakeCache.txt
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=$(FUZZ_CC) \
	  -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) -DHDG_FUZZ=ON $(CMAKE_GEN)
	cmake --build $(FUZZ_BUILD) --target $(addprefix hdg_fuzz_,$(FUZZ_TARGETS)) -j $(JOBS)

fuzz: fuzz-build
	sh fuzz/run.sh $(FUZZ_TARGET) $(FUZZ_TIME) $(FUZZ_BUILD)

fuzz-ci: fuzz-build
	for t in $(FUZZ_TARGETS); do sh fuzz/run.sh $$t $(FUZZ_CI_TIME) $(FUZZ_BUILD) ci || exit 1; done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
