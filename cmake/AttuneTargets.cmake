# Shared compile settings and helpers for Attune targets.

add_library(attune_options INTERFACE)
target_compile_options(attune_options INTERFACE -Wall -Wextra -Werror -Wno-missing-field-initializers)
target_include_directories(attune_options INTERFACE ${PROJECT_SOURCE_DIR}/src)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # g++ 12 reports a false -Wrestrict inside std::string's operator+ at -O2 and above
  # (GCC bug 105329); it is not about our code.
  target_compile_options(attune_options INTERFACE -Wno-restrict)
endif()

if(ATTUNE_SANITIZE)
  target_compile_options(attune_options INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(attune_options INTERFACE -fsanitize=address,undefined)
endif()

if(ATTUNE_LIBFUZZER)
  # Coverage instrumentation of every library, so that libFuzzer is guided by the code under
  # test and not only by the fuzz target's own file; the targets link libFuzzer (tests/fuzz).
  target_compile_options(attune_options INTERFACE -fsanitize=fuzzer-no-link)
endif()

if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  # libstdc++ 12 guards <expected> behind __cpp_concepts >= 202002L, which clang < 19
  # does not advertise although it implements what <expected> needs.
  target_compile_options(attune_options INTERFACE
    -U__cpp_concepts -D__cpp_concepts=202002L -Wno-builtin-macro-redefined)
endif()

# attune_module(NAME SOURCES... [DEPS ...]) — one static library per module under src/.
function(attune_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(attune_${name} STATIC ${ARG_SOURCES})
  target_link_libraries(attune_${name} PUBLIC attune_options ${ARG_DEPS})
  add_library(attune::${name} ALIAS attune_${name})
endfunction()
