# `cmake --install` puts the two binaries in PREFIX/bin and nothing else: neither needs a data
# file at run time (the report's style and the provider's answers are compiled in).
install(TARGETS loadgen fakeprovider RUNTIME DESTINATION bin)

# `cpack -G DEB` (make package): stampede_VERSION_ARCH.deb, whose dependencies dpkg-shlibdeps
# reads off the binaries, so it names the runtime libraries and no -dev package.
set(CPACK_PACKAGE_NAME stampede)
set(CPACK_PACKAGE_VENDOR stampede)
set(CPACK_PACKAGE_CONTACT "stampede developers <stampede@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "retry-storm load tester (loadgen) and fake rate-limited provider (fakeprovider)")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "loadgen runs a fleet of clients that retry with a chosen backoff against a rate-limited "
       "API, live or simulated, and gates CI on what the fleet does to the provider; "
       "fakeprovider is an HTTP server with an allowance, outages and a recorded arrival log.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_GENERATOR DEB)
include(CPack)
