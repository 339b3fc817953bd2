# The human entry point. `make test` and `make demo` are each the one command a fresh
# Debian 12 machine needs: both install what is missing and build first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# Ninja when the machine has it (`make deps` installs it): it starts the next compile sooner
# than make and rebuilds an edited file without re-reading every makefile. A tree already
# configured keeps the generator it was made with.
GENERATOR ?= $(if $(shell command -v ninja 2>/dev/null),Ninja,Unix Makefiles)
CONFIGURE = cmake -S . -B $(BUILD) $(if $(wildcard $(BUILD)/CMakeCache.txt),,-G "$(GENERATOR)")
# The Debian packages, by who needs them. A user's `make build` (and the Dockerfile's build
# stage) installs BUILD_PACKAGES only: no browser, no nginx, no redis.
BUILD_PACKAGES := cmake g++ pkg-config dpkg-dev libcurl4-openssl-dev libssl-dev libcpp-httplib-dev \
                  libcli11-dev nlohmann-json3-dev libhiredis-dev ninja-build
# What the two binaries load at run time; the .deb's Depends (read off the binaries by
# dpkg-shlibdeps) names these.
RUNTIME_PACKAGES := libcurl4 libssl3 libcpp-httplib0.11 libhiredis0.14
# What only our own tests need: doctest; curl, nginx (over https, with certificates openssl
# makes) and real client libraries as peers; chromium to render a report and, with firefox-esr,
# to watch the live dashboard; python3 (+yaml) for
# the report checks; clang-format for fmt-check; redis-server for replicas sharing one
# allowance; debootstrap for the package test's bare Debian 12; ccache and mold for faster
# rebuilds and links.
TEST_PACKAGES := doctest-dev curl nginx openssl chromium firefox-esr python3 python3-yaml python3-requests \
                 python3-urllib3 python3-tenacity clang-format redis-server debootstrap ccache mold
# `make fuzz` only: clang and its libFuzzer runtime.
FUZZ_PACKAGES := clang libclang-rt-dev
EXTRA_PACKAGES ?=
FUZZ_SECONDS ?= 30
FUZZ_TARGETS := fuzz_scenario fuzz_duration fuzz_rate fuzz_assertion fuzz_retry_after \
                fuzz_results fuzz_provider_request fuzz_request_head fuzz_http_response \
                fuzz_admin_request fuzz_merge fuzz_upstream_answer
SOURCES = $(shell find core process http fakeprovider loadgen reports tests bench fuzz -name '*.cpp' -o -name '*.hpp' 2>/dev/null)

.PHONY: all deps deps-test build build-tests build-profile install package test test-unit test-slow test-soak test-slow-rest test-bench asan tsan fuzz fmt fmt-check demo golden dashboard-png bench clean

all: build

# install-missing PACKAGES: apt-get install whichever of them are not installed yet.
define install-missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
	fi
endef

deps:
	$(call install-missing,$(BUILD_PACKAGES) $(EXTRA_PACKAGES))

deps-test:
	$(call install-missing,$(BUILD_PACKAGES) $(TEST_PACKAGES) $(EXTRA_PACKAGES))

# The binaries only (BUILD_TESTING=OFF: no doctest needed); build-tests adds the test binaries.
build: deps
	$(CONFIGURE) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-tests: deps-test
	$(CONFIGURE) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Where a fresh build's time goes: the slowest translation units and links, CPU by target
# (bench/build/profile.sh; a tree of its own, no ccache). CMAKE_FLAGS profile another build,
# e.g. CMAKE_FLAGS="-DSTAMPEDE_UNITY=OFF".
build-profile: deps-test
	bench/build/profile.sh "" -- $(CMAKE_FLAGS)

# `make install PREFIX=/usr/local`: the two binaries into PREFIX/bin.
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# `make package`: $(BUILD)/stampede_VERSION_ARCH.deb, for `apt-get install ./stampede_*.deb`.
package: build
	cd $(BUILD) && cpack -G DEB
	@ls $(BUILD)/stampede_*.deb

# `make test`: every unit and integration case, one ctest test each, CTEST_JOBS at a time (most
# integration cases wait on a subprocess or a scaled clock rather than burn CPU). The cases
# named "slow: ..." (thousands of connections, minutes of storm) are `make test-slow`; the live
# storm's exact match with the simulation ("bench: ...") depends on the machine's spare CPU, so
# it is a benchmark (bench/live), not a gate: `make test-bench` runs it.
# Six cases a core: the Release cases spend most of their time waiting (303 s of case time
# in 83 s of CPU), so at two a core a run took 77 s of wall and the cores stood half idle;
# at six it takes 32 s (bench/build/README.md). The slow cases (thousands of connections) and the sanitizer trees
# (several times the CPU a case) keep two a core.
CTEST_JOBS ?= $(shell echo $$(( $(JOBS) * 6 )))
HEAVY_CTEST_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
CTEST = cd $(BUILD) && ctest --output-on-failure --timeout 600 -j $(CTEST_JOBS)
HEAVY_CTEST = cd $(BUILD) && ctest --output-on-failure --timeout 600 -j $(HEAVY_CTEST_JOBS)

# The labels `make test` leaves out; the sanitizer trees also leave out `browser`.
SKIP_LABELS ?= slow|bench

test: build-tests
	$(CTEST) -L 'unit|integration' -LE '$(SKIP_LABELS)'

test-unit: build-tests
	$(CTEST) -L unit

test-slow: build-tests
	$(HEAVY_CTEST) -L slow

# test-slow in two: the soak (ten minutes of mostly waiting on a light, steady load) and the
# rest, so CI can run the soak beside the sanitizer builds.
test-soak: build-tests
	$(HEAVY_CTEST) -L slow -R '^soak: '

test-slow-rest: build-tests
	$(HEAVY_CTEST) -L slow -E '^soak: '

test-bench: build-tests
	$(HEAVY_CTEST) -L bench

# The sanitizer trees run the unit and integration cases; the slow ones run in Release only, and
# so do the nine that drive a real browser (label `browser`): Chromium's and Firefox's start
# and drawing were 224 s of ASan's case time and 214 s of TSan's (5 December), and what they
# read the sanitized servers also serve to the dashboard and report cases without a browser.
SANITIZER_SKIP := slow|bench|browser

asan:
	$(MAKE) test BUILD=build-asan CTEST_JOBS=$(HEAVY_CTEST_JOBS) SKIP_LABELS='$(SANITIZER_SKIP)' CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAMPEDE_SANITIZE=address,undefined"

tsan:
	$(MAKE) test BUILD=build-tsan CTEST_JOBS=$(HEAVY_CTEST_JOBS) SKIP_LABELS='$(SANITIZER_SKIP)' CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAMPEDE_SANITIZE=thread"

# Each libFuzzer target (fuzz/) for FUZZ_SECONDS on its committed corpus; exits 1 on a finding.
fuzz:
	$(MAKE) deps-test EXTRA_PACKAGES="$(FUZZ_PACKAGES)"
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

golden: build-tests
	STAMPEDE_UPDATE_GOLDEN=1 $(BUILD)/bin/test_report -tc='*golden*'

# docs/dashboard.png: the live dashboard mid-storm, as its browser test screenshots it.
dashboard-png: build-tests
	STAMPEDE_DASHBOARD_PNG=$(CURDIR)/docs/dashboard.png $(BUILD)/bin/test_report -tc="*fakeprovider's /dashboard*"

bench: build
	bench/sim/run.sh $(BUILD)

clean:
	rm -rf build build-asan build-tsan build-fuzz
