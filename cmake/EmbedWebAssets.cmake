# Compiles a folder of web files into C++ (no build step, no CDN: the files ship
# inside the binary). Used two ways:
#  - included by CMakeLists.txt: berth_embed_web_assets(TARGET DIR HEADER NAMESPACE FUNCTION)
#    adds a generated source to TARGET that defines
#      std::span<const WebAsset> NAMESPACE::FUNCTION()
#    (HEADER declares both: `struct WebAsset { std::string_view path, body; }` and the
#    function), regenerated when a file under DIR changes;
#  - run as a script (cmake -P) by that rule, with ROOT, FILES (ROOT-relative
#    paths joined by |), OUT, HEADER, NAMESPACE and FUNCTION.

if(CMAKE_SCRIPT_MODE_FILE)
  set(body "// Generated from ${ROOT} by cmake/EmbedWebAssets.cmake; do not edit.\n")
  string(APPEND body "#include <span>\n#include \"${HEADER}\"\n\nnamespace ${NAMESPACE} {\nnamespace {\n")
  set(entries "")
  set(index 0)
  string(REPLACE "|" ";" FILES "${FILES}")
  foreach(file ${FILES})
    file(READ "${ROOT}/${file}" hex HEX)
    string(LENGTH "${hex}" hex_length)
    math(EXPR size "${hex_length} / 2")
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
    # One line per 32 bytes keeps the generated file readable in a debugger.
    string(REGEX REPLACE "((0x..,){32})" "\\1\n" bytes "${bytes}")
    string(APPEND body "const unsigned char kAsset${index}[${size} + 1] = {\n${bytes}0};\n")
    string(APPEND entries "    {\"${file}\", {reinterpret_cast<const char*>(kAsset${index}), ${size}}},\n")
    math(EXPR index "${index} + 1")
  endforeach()
  string(APPEND body "const WebAsset kAssets[] = {\n${entries}};\n}  // namespace\n\n")
  string(APPEND body "std::span<const WebAsset> ${FUNCTION}() { return kAssets; }\n\n}  // namespace ${NAMESPACE}\n")
  file(WRITE "${OUT}.tmp" "${body}")
  file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${OUT}.tmp")
  return()
endif()

function(berth_embed_web_assets target dir header namespace function)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS RELATIVE ${dir} ${dir}/*)
  list(SORT files)
  string(MAKE_C_IDENTIFIER "${function}" stem)
  set(out ${CMAKE_BINARY_DIR}/generated/${stem}.cc)
  set(paths "")
  foreach(file ${files})
    list(APPEND paths ${dir}/${file})
  endforeach()
  string(REPLACE ";" "|" file_list "${files}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DROOT=${dir} -DOUT=${out} -DHEADER=${header} -DNAMESPACE=${namespace} -DFUNCTION=${function}
            "-DFILES=${file_list}" -P ${CMAKE_SOURCE_DIR}/cmake/EmbedWebAssets.cmake
    DEPENDS ${paths} ${CMAKE_SOURCE_DIR}/cmake/EmbedWebAssets.cmake
    COMMENT "Embedding ${dir} in ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
