# The libFuzzer build (BERTH_FUZZ=ON, `make fuzz`): clang, every library
# instrumented for coverage (-fsanitize=fuzzer-no-link) with ASan and UBSan,
# Boost.JSON compiled from its sources so that it is instrumented too, and
# only the fuzz/fuzz_*.cc targets: no tests, benchmarks or berth binary.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "BERTH_FUZZ needs clang (libFuzzer), e.g. CXX=clang++-16; this is ${CMAKE_CXX_COMPILER_ID}")
endif()
if(BERTH_SANITIZE)
  message(FATAL_ERROR "BERTH_FUZZ brings its own sanitizers; leave BERTH_SANITIZE empty")
endif()

set(BERTH_FUZZ_SANITIZERS address,undefined)
# -O1 over the build type's level (make fuzz uses Debug, so assertions stay
# on): quick enough to compile and to run under the sanitizers.
add_compile_options(-O1 -fsanitize=fuzzer-no-link,${BERTH_FUZZ_SANITIZERS}
                    -fno-omit-frame-pointer -fno-sanitize-recover=all)
add_link_options(-fsanitize=${BERTH_FUZZ_SANITIZERS})

# Boost.JSON's implementation as one translation unit of ours (its header-only
# use: boost/json/src.hpp), in place of the distribution's uninstrumented
# libboost_json.
add_library(berth_boost_json STATIC ${CMAKE_SOURCE_DIR}/fuzz/boost_json.cc)
target_link_libraries(berth_boost_json PUBLIC Boost::headers)
set(BERTH_JSON_LIBRARY berth_boost_json)

# Called once berth_log, berth_api and berth_metrics are defined (all of
# api/ is under test). Of the modules above them only the sources the targets
# reach are compiled, as libraries of their own: the whole of apiserver/ and
# scheduler/ instrumented would take most of the fuzz stage's time to build.
# A target that comes to need another file fails to link: add the file here.
function(berth_fuzz_targets)
  find_package(OpenSSL REQUIRED)
  set(src ${CMAKE_SOURCE_DIR}/src)
  file(GLOB wal_srcs CONFIGURE_DEPENDS ${src}/store/wal/*.cc)
  add_library(berth_fuzz_store STATIC ${wal_srcs})
  target_link_libraries(berth_fuzz_store PUBLIC berth_api berth_log)
  berth_include_folder(berth_fuzz_store store)

  file(GLOB schema_srcs CONFIGURE_DEPENDS ${src}/apiserver/schema/protobuf.cc ${src}/apiserver/schema/go_types_*.cc)
  add_library(berth_fuzz_apiserver STATIC ${schema_srcs}
    ${src}/apiserver/patch/patch.cc ${src}/apiserver/http.cc ${src}/apiserver/http_server.cc
    ${src}/apiserver/request_info.cc ${src}/apiserver/authz/max_inflight.cc ${src}/apiserver/status_json.cc
    ${src}/apiserver/crd/structural_schema.cc ${src}/apiserver/crd/schema_validation.cc)
  target_link_libraries(berth_fuzz_apiserver PUBLIC berth_api berth_log OpenSSL::SSL OpenSSL::Crypto)
  berth_include_folder(berth_fuzz_apiserver apiserver)

  add_library(berth_fuzz_client STATIC ${src}/client/kubeconfig.cc)
  target_link_libraries(berth_fuzz_client PUBLIC berth_api yaml-cpp)
  berth_include_folder(berth_fuzz_client client)

  add_library(berth_fuzz_scheduler STATIC ${src}/scheduler/framework/config_yaml.cc
    ${src}/scheduler/framework/extender_config_yaml.cc ${src}/scheduler/framework/yaml_fields.cc)
  target_link_libraries(berth_fuzz_scheduler PUBLIC berth_api yaml-cpp)
  berth_include_folder(berth_fuzz_scheduler scheduler)

  add_library(berth_fuzz_util STATIC ${CMAKE_SOURCE_DIR}/fuzz/fuzz_util.cc)
  target_link_libraries(berth_fuzz_util PUBLIC berth_api)

  # One executable per fuzz/fuzz_*.cc, with libFuzzer's main.
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/fuzz/fuzz_*.cc)
  list(FILTER srcs EXCLUDE REGEX "/fuzz_util\\.cc$")
  foreach(target_src ${srcs})
    get_filename_component(name ${target_src} NAME_WE)
    add_executable(${name} ${target_src})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/fuzz)
    target_link_libraries(${name} PRIVATE berth_fuzz_util berth_fuzz_scheduler berth_fuzz_client berth_fuzz_apiserver
                          berth_fuzz_store berth_api berth_log Threads::Threads)
  endforeach()
endfunction()
