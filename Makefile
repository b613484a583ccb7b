# The two commands that set everything up on a fresh Debian 12 machine:
#   make run    install missing packages, build, run berth
#   make test   install missing packages, build, run every test
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# Seconds per fuzz target: 21 targets, two at a time. CI takes 10 so that the
# fuzz stage (a cold instrumented build and the runs) stays within about ten
# minutes on two cores.
FUZZ_SECONDS ?= $(if $(CI),10,20)
JOBS ?= $(shell nproc)
WERROR ?= $(if $(CI),ON,OFF)
DATA_DIR ?= data

.PHONY: all deps build run test test-unit test-asan test-tsan fuzz bench format clean

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

# Every test: unit and end-to-end, then the unit tests under ASan+UBSan, the
# concurrency tests under TSan and the fuzz targets.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	$(MAKE) test-asan
	$(if $(CI),rm -rf $(ASAN_BUILD))  # CI's disk: the sanitizer build is the largest
	$(MAKE) test-tsan
	$(MAKE) fuzz

test-unit: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L unit

# Unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBERTH_WERROR=$(WERROR) \
	  -DBERTH_SANITIZE=address,undefined
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -L unit -E 'Crash\.'

# Concurrency tests under ThreadSanitizer.
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBERTH_WERROR=$(WERROR) \
	  -DBERTH_SANITIZE=thread
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target \
	  $$(ninja -C $(TSAN_BUILD) -t targets all | grep -o '^[a-z0-9_]*_stress_test' | sort -u)
	ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) -R 'Stress\.'

# The libFuzzer targets (fuzz/) built with clang-16 under ASan+UBSan, each run
# for FUZZ_SECONDS from its seed corpus (fuzz/corpus/); fails on a crash, a
# leak or a timeout. Only the fuzz targets and the libraries they use are built.
fuzz: deps
	CC=clang-16 CXX=clang++-16 cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DBERTH_FUZZ=ON -DBERTH_MALLOC=system -DBERTH_WERROR=$(WERROR)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	@ls $(BUILD)/*_bench

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
