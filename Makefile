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
TEST_PACKAGES := curl nginx chromium python3 python3-yaml clang-format redis-server
# `make fuzz` only: clang and its libFuzzer runtime.
FUZZ_PACKAGES := clang libclang-rt-dev
EXTRA_PACKAGES ?=
FUZZ_SECONDS ?= 30
FUZZ_TARGETS := fuzz_scenario fuzz_duration fuzz_rate fuzz_assertion fuzz_retry_after \
                fuzz_results fuzz_provider_request fuzz_http_response
SOURCES = $(shell find core fakeprovider loadgen reports tests bench fuzz -name '*.cpp' -o -name '*.hpp' 2>/dev/null)

.PHONY: all deps build test test-long test-acceptance asan tsan fuzz fmt fmt-check demo golden bench clean

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

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The tests too long for every `make test` (thousands of connections, minutes of storm): the
# ones named "long: ...", which skip themselves unless STAMPEDE_LONG_TESTS=1. The live storm's
# exact match with the simulation ("acceptance: ...") depends on the machine's spare CPU, so
# it is a benchmark (bench/live), not a gate: `make test-acceptance` runs it.
test-long: build
	@for t in $(BUILD)/bin/test_*; do \
	  echo "== $$t"; \
	  STAMPEDE_LONG_TESTS=1 $$t -tc='long:*' || exit 1; \
	done

test-acceptance: build
	STAMPEDE_LONG_TESTS=1 $(BUILD)/bin/test_live -tc='acceptance:*'

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
