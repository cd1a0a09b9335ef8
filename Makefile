# Thin wrapper around CMake/CTest. `make help` lists the targets.
BUILD      ?= build/release
ASAN_BUILD ?= build/asan
JOBS       ?= $(shell nproc)
EXAMPLE    ?= examples/default/racy_counter.std
CMAKE_FLAGS ?=

.PHONY: all build run test test-release test-asan bench fuzz fuzz-ci format format-check clean help install

all: build

help:
	@echo "make build        Release build in $(BUILD)"
	@echo "make run          build, then racepred analyze on $(EXAMPLE)"
	@echo "make test         Release build + all tests, then ASan+UBSan build + all tests"
	@echo "make test-release only the Release tests"
	@echo "make bench        Google Benchmark programs and bench/run.sh"
	@echo "make fuzz         libFuzzer targets, FUZZ_BUDGET seconds in total (scripts/fuzz.sh)"
	@echo "make fuzz-ci      the CI fuzz run: 3000 seeded runs per target (docs/FUZZING.md)"
	@echo "make format       clang-format every source file"
	@echo "make install      build, then install under PREFIX (default /usr/local; docs/INSTALL.md)"

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# racepred exits 1 when it reports races: that is a successful run here. Builds only the
# binary (not the tests and benchmarks).
run:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS) --target racepred
	./$(BUILD)/racepred analyze $(EXAMPLE) || [ $$? -eq 1 ]

test: test-release test-asan

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# -O1 keeps the sanitized tests fast; line tables only (-g1) are all the sanitizers' reports need
# and compile a quarter faster than full debug information.
test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRACEPRED_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS="-O1" -DCMAKE_CXX_FLAGS_DEBUG="-g1" $(CMAKE_FLAGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  RACEPRED_SANITIZED=1 ctest --output-on-failure -j$(JOBS)

bench: build
	bash bench/run.sh $(BUILD)

FUZZ_BUDGET ?= 180
fuzz:
	scripts/fuzz.sh --budget $(FUZZ_BUDGET)

# CI: a fixed libFuzzer seed and a fixed number of runs per target, so the run is the same on
# every machine (the time budget only caps a slow one).
fuzz-ci:
	scripts/fuzz.sh --budget 270 -- -seed=1 -runs=3000

format:
	find src tests bench -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

format-check:
	find src tests bench -name '*.cpp' -o -name '*.hpp' | xargs clang-format --dry-run --Werror

clean:
	rm -rf build
