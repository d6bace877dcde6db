# Third-party libraries, all from Debian 12 packages (see ci/install-deps.sh).
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZMQ REQUIRED IMPORTED_TARGET libzmq)
# Checkpoint images: xxh64 checksums and optional zstd compression (libxxhash-dev, libzstd-dev).
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
find_path(CPPZMQ_INCLUDE_DIR zmq.hpp REQUIRED)
find_package(cereal REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(Catch2 2 REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
