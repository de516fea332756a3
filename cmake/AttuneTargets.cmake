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
  # Sanitized executables are linked position-dependent: most of their data is the sanitizers'
  # per-check records, which are pointers, and a position-independent executable carries a
  # 24-byte relocation for each (a third of every test executable's size on disk).
  target_link_options(attune_options INTERFACE -fsanitize=address,undefined -no-pie)
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

# attune_unity(TARGET): compiles TARGET's sources ATTUNE_UNITY_BATCH at a time, each batch one
# translation unit (CMake's unity build), when ATTUNE_UNITY_BATCH is above 1. The project's
# headers, the standard library's, nlohmann/json's and GoogleTest's are then parsed once per
# batch instead of once per file: most of a cold build's time. A file that cannot share a unit
# with others is listed with attune_compile_alone where its target is defined.
function(attune_unity target)
  if(ATTUNE_UNITY_BATCH GREATER 1)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                               UNITY_BUILD_BATCH_SIZE ${ATTUNE_UNITY_BATCH})
  endif()
endfunction()

# attune_compile_alone(FILE...): the files are compiled each on its own, outside the unity
# batches, because their file-local names (anonymous namespace, static) clash with another
# file's of the same target. Call it in the directory that defines the target.
function(attune_compile_alone)
  set_source_files_properties(${ARGN} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# attune_module(NAME SOURCES... [DEPS ...]) — one static library per module under src/.
function(attune_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(attune_${name} STATIC ${ARG_SOURCES})
  attune_unity(attune_${name})
  target_link_libraries(attune_${name} PUBLIC attune_options ${ARG_DEPS})
  add_library(attune::${name} ALIAS attune_${name})
endfunction()
