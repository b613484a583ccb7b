# The two commands that set everything up on a fresh Debian 12 machine:
#   make run    install missing packages, build, run berth
#   make test   install missing packages, build, run every test
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
# Seconds per fuzz target: 22 targets, two at a time.
FUZZ_SECONDS ?= $(if $(CI),10,20)
JOBS ?= $(shell nproc)
WERROR ?= $(if $(CI),ON,OFF)
DATA_DIR ?= data

.PHONY: all deps build build-e2e run test test-release test-unit asan-build test-asan test-tsan fuzz bench format clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBERTH_WERROR=$(WERROR)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# A living cluster on 127.0.0.1:8080: the API server and its durable store, the
# scheduler, the controllers and 16 simulated nodes in 3 zones. Plain
# `kubectl get nodes` works.
SIM_NODES ?= 16
SIM_ZONES ?= 3
run: build
	$(BUILD)/berth serve --data-dir $(DATA_DIR) --sim-nodes $(SIM_NODES) --sim-zones $(SIM_ZONES)

# Every test: unit and end-to-end, then the unit tests under ASan+UBSan and
# the fuzz targets (one instrumented build), the concurrency tests under TSan.
test: test-release
	$(MAKE) test-asan
	$(MAKE) fuzz
	$(if $(CI),rm -rf $(ASAN_BUILD))  # CI's disk: the sanitizer build is the largest
	$(MAKE) test-tsan

# CI compiles each test once: its unit tests run in the ASan+UBSan build
# (test-asan), so its release build is berth and what the end-to-end tests
# run, and it runs those and the crash tests (which SIGKILL the binary and
# are too slow under ASan). Elsewhere every test runs in the release build too.
ifeq ($(CI),)
test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
else
test-release: build-e2e
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L e2e
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -R 'Crash\.'
endif

# The release build's binaries and the crash tests' executable.
E2E_TARGETS = berth my-scheduler myapp-operator store_crash_test
build-e2e: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(E2E_TARGETS)

test-unit: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L unit

# The AddressSanitizer + UndefinedBehaviorSanitizer build, with clang-16: the
# unit tests and the libFuzzer targets (fuzz/, cmake/Fuzz.cmake) from one
# instrumented compile of the tree.
ASAN_CMAKE = cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++-16 \
  -DBERTH_WERROR=$(WERROR) -DBERTH_SANITIZE=address,undefined -DBERTH_FUZZ=ON
asan-build: deps
	$(ASAN_CMAKE)
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# Unit tests again under ASan+UBSan.
test-asan: asan-build
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -L unit -E 'Crash\.'

# Concurrency tests under ThreadSanitizer.
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBERTH_WERROR=$(WERROR) \
	  -DBERTH_SANITIZE=thread
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target \
	  $$(ninja -C $(TSAN_BUILD) -t targets all | grep -o '^[a-z0-9_]*_stress_test' | sort -u)
	ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) -R 'Stress\.'

# The libFuzzer targets of the ASan build, each run for FUZZ_SECONDS from its
# seed corpus (fuzz/corpus/); fails on a crash, a leak or a timeout. Alone,
# `make fuzz` builds only the fuzz targets and the libraries they use.
fuzz: deps
	$(ASAN_CMAKE)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target \
	  $$(ninja -C $(ASAN_BUILD) -t targets all | grep -o '^fuzz_[a-z0-9_]*:' | tr -d : | sort -u)
	fuzz/run.sh $(ASAN_BUILD) $(FUZZ_SECONDS)

bench: build
	@ls $(BUILD)/*_bench

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
