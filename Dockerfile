# stampede as a container image, for pipelines that run jobs in one (`container:` in GitHub
# Actions, `image:` in GitLab CI). Two stages: the build stage installs the build packages
# only (make deps: no browser, no nginx, no redis) and makes the .deb; the runtime image is
# Debian 12 with that .deb installed, so it holds the two binaries and the libraries they load.
#   docker build -t stampede .
#   docker run --rm stampede loadgen --version
FROM debian:12 AS build
RUN apt-get update -q && apt-get install -y -q --no-install-recommends make ca-certificates
WORKDIR /src
COPY . .
RUN make deps && make package BUILD=/build

FROM debian:12
COPY --from=build /build/stampede_*.deb /tmp/
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends ca-certificates /tmp/stampede_*.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/stampede_*.deb
CMD ["loadgen", "--help"]
