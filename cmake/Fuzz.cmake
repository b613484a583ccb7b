# The libFuzzer targets (BERTH_FUZZ=ON), built inside the ASan+UBSan build
# that runs the unit tests (`make test-asan`, then `make fuzz`): one
# instrumented compile of the tree serves both. It needs clang for libFuzzer:
# every library is instrumented for coverage (-fsanitize=fuzzer-no-link), and
# Boost.JSON is compiled from its sources so that the parser is instrumented
# too. The fuzz targets are fuzz/fuzz_*.cc, each linked with libFuzzer's main.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "BERTH_FUZZ needs clang (libFuzzer), e.g. CXX=clang++-16; this is ${CMAKE_CXX_COMPILER_ID}")
endif()
if(NOT BERTH_SANITIZE MATCHES "address")
  message(FATAL_ERROR "BERTH_FUZZ runs in the AddressSanitizer build: -DBERTH_SANITIZE=address,undefined")
endif()

add_compile_options(-fsanitize=fuzzer-no-link)

# Boost.JSON's implementation as one translation unit of ours (its header-only
# use: boost/json/src.hpp), in place of the distribution's uninstrumented
# libboost_json.
add_library(berth_boost_json STATIC ${CMAKE_SOURCE_DIR}/fuzz/boost_json.cc)
target_link_libraries(berth_boost_json PUBLIC Boost::headers)
set(BERTH_JSON_LIBRARY berth_boost_json)

# Called once the modules are defined. A target links the modules whose
# headers it includes.
function(berth_fuzz_targets)
  add_library(berth_fuzz_util STATIC ${CMAKE_SOURCE_DIR}/fuzz/fuzz_util.cc)
  target_link_libraries(berth_fuzz_util PUBLIC berth_api)

  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/fuzz/fuzz_*.cc)
  list(FILTER srcs EXCLUDE REGEX "/fuzz_util\\.cc$")
  foreach(target_src ${srcs})
    get_filename_component(name ${target_src} NAME_WE)
    add_executable(${name} ${target_src})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/fuzz)
    target_link_libraries(${name} PRIVATE berth_fuzz_util berth_scheduler berth_client berth_apiserver
                          berth_store berth_api berth_log Threads::Threads)
  endforeach()
endfunction()
