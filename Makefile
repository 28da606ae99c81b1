# hdgc — front door. `make run` and `make test` work on a fresh Debian machine.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_GEN  := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps build run test test-asan test-gpu fuzz clean

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

# test-gpu: the tests labelled gpu (device kernels vs the C backend); they fail
# instead of skipping when no GPU is usable.
test-gpu: build
	cd $(BUILD) && HDG_REQUIRE_GPU=1 ctest -L gpu --output-on-failure

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHDG_SANITIZE=ON $(CMAKE_GEN)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# fuzz: libFuzzer on the frontend (frontend/fuzz/harness.c) for FUZZ_TIME seconds,
# seeded with examples/ and tests/data/frontend/; crashes land in build-fuzz/crashes/.
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 60
fuzz:
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DHDG_FUZZ=ON $(CMAKE_GEN)
	cmake --build $(FUZZ_BUILD) --target hdg_fuzz_parser -j $(JOBS)
	mkdir -p $(FUZZ_BUILD)/corpus $(FUZZ_BUILD)/crashes
	$(FUZZ_BUILD)/hdg_fuzz_parser -max_total_time=$(FUZZ_TIME) -max_len=8192 -timeout=10 \
	  -rss_limit_mb=2048 -dict=frontend/fuzz/hdg.dict -artifact_prefix=$(FUZZ_BUILD)/crashes/ \
	  $(FUZZ_BUILD)/corpus examples tests/data/frontend

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
