# The human entry point. `make test` and `make demo` are each the one command a fresh
# Debian 12 machine needs: both install what is missing and build first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
DEB_PACKAGES := cmake g++ pkg-config libcurl4-openssl-dev libcpp-httplib-dev libmicrohttpd-dev \
                libcli11-dev nlohmann-json3-dev doctest-dev libhiredis-dev
# What the tests drive besides our binaries: curl and nginx as real peers, chromium to render
# a report, python3 (+yaml) for the report checks, clang-format for fmt-check, redis-server
# for the replicas sharing one allowance (fakeprovider --store).
# ccache and mold only make our own rebuilds and links faster.
TEST_PACKAGES := curl nginx chromium python3 python3-yaml clang-format redis-server ccache mold
# `make fuzz` only: clang and its libFuzzer runtime.
FUZZ_PACKAGES := clang libclang-rt-dev
EXTRA_PACKAGES ?=
FUZZ_SECONDS ?= 30
FUZZ_TARGETS := fuzz_scenario fuzz_duration fuzz_rate fuzz_assertion fuzz_retry_after \
                fuzz_results fuzz_provider_request fuzz_http_response
SOURCES = $(shell find core fakeprovider loadgen reports tests bench fuzz -name '*.cpp' -o -name '*.hpp' 2>/dev/null)

.PHONY: all deps build test test-unit test-slow test-bench asan tsan fuzz fmt fmt-check demo golden bench clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES) $(TEST_PACKAGES) $(EXTRA_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# `make test`: every unit and integration case, one ctest test each, CTEST_JOBS at a time (most
# integration cases wait on a subprocess or a scaled clock rather than burn CPU). The cases
# named "slow: ..." (thousands of connections, minutes of storm) are `make test-slow`; the live
# storm's exact match with the simulation ("bench: ...") depends on the machine's spare CPU, so
# it is a benchmark (bench/live), not a gate: `make test-bench` runs it.
CTEST_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
CTEST = cd $(BUILD) && ctest --output-on-failure --timeout 600 -j $(CTEST_JOBS)

test: build
	$(CTEST) -L 'unit|integration' -LE 'slow|bench'

test-unit: build
	$(CTEST) -L unit

test-slow: build
	$(CTEST) -L slow

test-bench: build
	$(CTEST) -L bench

# The sanitizer trees run the unit and integration cases; the slow ones run in Release only.
asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAMPEDE_SANITIZE=address,undefined"

tsan:
	$(MAKE) test BUILD=build-tsan CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAMPEDE_SANITIZE=thread"

# Each libFuzzer target (fuzz/) for FUZZ_SECONDS on its committed corpus; exits 1 on a finding.
fuzz:
	$(MAKE) deps EXTRA_PACKAGES="$(FUZZ_PACKAGES)"
	cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSTAMPEDE_SANITIZE=address,undefined -DSTAMPEDE_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzzers
	fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fmt:
	@clang-format -i $(SOURCES)

fmt-check:
	@clang-format --dry-run --Werror $(SOURCES) && echo "fmt-check: clean"

demo: build
	examples/demo.sh $(BUILD)

golden: build
	STAMPEDE_UPDATE_GOLDEN=1 $(BUILD)/bin/test_report -tc='*golden*'

bench: build
	bench/sim/run.sh $(BUILD)

clean:
	rm -rf build build-asan build-tsan build-fuzz
